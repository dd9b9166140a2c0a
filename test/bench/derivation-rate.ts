/**
 * How fast the pool refill derives deposit addresses, per network: each address by both of its
 * codec's implementations, as the derivation thread does it (chains/derivation/worker-main.ts),
 * with the check on libsecp256k1 (the add-on as it loads here) and on the packages' JavaScript
 * fallback (forced). Also each implementation alone, and the rate through a real DerivationThread
 * in chunks of 50 (what PoolKeeper asks for).
 *
 *   npx tsx test/bench/derivation-rate.ts [addresses per measurement, default 400]
 *
 * Figures are CPU time of this thread (process.cpuUsage), best of 3 runs, so that other processes
 * on the machine disturb them less than wall time; the thread figure is wall time.
 */
import { HDKey } from '@scure/bip32';
import { createAddressCodec } from '../../src/chains/codecs';
import { mnemonicToSeed } from '../../src/chains/keys/bip39';
import { widenBaseTable } from '../../src/chains/keys/bip32';
import { DerivationThread } from '../../src/chains/derivation/derivation-thread';
import { loadSecp256k1Addon, type Secp256k1Addon } from '../../src/chains/keys/secp256k1-addon';
import type { NetworkCode } from '../../src/domain/networks';

const MNEMONIC = 'test test test test test test test test test test test junk';
const N = Number(process.argv[2] ?? 400);
const NETWORKS: NetworkCode[] = ['POLYGON', 'TRC20', 'SOLANA'];

const ENGINES: Record<string, Secp256k1Addon> = {
  libsecp256k1: loadSecp256k1Addon(),
  javascript: loadSecp256k1Addon((id) => {
    if (id.endsWith('/bindings')) throw new Error('forced JavaScript');
    return require(id) as unknown;
  }),
};

/** Best-of-3 CPU µs per address of `run(from, count)`. */
async function cpuPerAddress(run: (from: number, count: number) => unknown): Promise<number> {
  await run(1_000_000, 10); // warm-up (module loads, JIT, the account node)
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const from = r * N;
    const before = process.cpuUsage();
    await run(from, N);
    const used = process.cpuUsage(before);
    runs.push((used.user + used.system) / N);
  }
  return Math.min(...runs);
}

const fmt = (us: number): string => `${us.toFixed(0)} µs`;
const rate = (us: number): string => `${Math.round(1e6 / us).toLocaleString('en-US')}/s`;

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${N} addresses per measurement, CPU time per address (best of 3)`);
  for (const table of ['noble base table window 8 (default)', 'noble base table window 12 (the derivation thread after 5,000 addresses)']) {
    console.log(`\n${table}`);
    if (table.includes('12')) widenBaseTable();
    for (const network of NETWORKS) {
      for (const [engine, addon] of Object.entries(ENGINES)) {
        if (network === 'SOLANA' && engine === 'javascript') continue; // SOLANA's check does not use the add-on
        for (const keys of network === 'SOLANA' ? [{ mnemonic: MNEMONIC }] : [{ mnemonic: MNEMONIC }, watchOnly(network)]) {
          const codec = createAddressCodec(network, keys, { addon });
          const derive = (from: number, count: number): string[] => codec.deriveDepositAddresses?.(from, count) ?? Array.from({ length: count }, (_, k) => codec.deriveDepositAddress(from + k));
          const first = await cpuPerAddress(derive);
          const check = await cpuPerAddress((from, count) => codec.crossCheckDepositAddresses(from, count));
          const both = await cpuPerAddress(async (from, count) => [derive(from, count), await codec.crossCheckDepositAddresses(from, count)]);
          const label = `${network} ${keys.mnemonic ? 'mnemonic' : 'watch-only'}, check on ${network === 'SOLANA' ? '@ton/crypto + OpenSSL' : engine}`;
          console.log(`${label.padEnd(48)} first ${fmt(first).padStart(7)}  check ${fmt(check).padStart(7)}  both ${fmt(both).padStart(7)}  -> ${rate(both)} on one core`);
        }
      }
    }
  }
  console.log('\nThrough a DerivationThread (wall time, chunks of 50 as PoolKeeper asks, both implementations; after 5,000 EVM addresses, so with the wider table):');
  const thread = new DerivationThread({ mnemonic: MNEMONIC });
  try {
    for (let from = 2_000_000; from < 2_005_000; from += 500) await thread.derive('POLYGON', from, 500);
    for (const network of NETWORKS) {
      const started = performance.now();
      for (let from = 0; from < N; from += 50) await thread.derive(network, from, Math.min(50, N - from));
      const ms = performance.now() - started;
      console.log(`${network.padEnd(8)} ${Math.round((N * 1000) / ms).toLocaleString('en-US')} addresses/s (check engine: ${thread.engine})`);
    }
  } finally {
    await thread.close();
  }
}

/** The account xpub of the same mnemonic (watch-only key material). */
function watchOnly(network: NetworkCode): { xpub?: string; tronXpub?: string; mnemonic?: undefined } {
  const root = HDKey.fromMasterSeed(mnemonicToSeed(MNEMONIC));
  return network === 'TRC20' ? { tronXpub: root.derive("m/44'/195'/0'").publicExtendedKey } : { xpub: root.derive("m/44'/60'/0'").publicExtendedKey };
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
