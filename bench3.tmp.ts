import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { secp256k1 } from '@noble/curves/secp256k1';
const seed = mnemonicToSeedSync('test test test test test test test test test test test junk');
const ext = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
const N = 400;
function time(label: string, f: (i: number) => unknown) {
  for (let i = 0; i < 20; i++) f(i);
  const best: number[] = [];
  for (let r = 0; r < 3; r++) { const c = process.cpuUsage(); for (let i = 0; i < N; i++) f(1000 + r * N + i); const d = process.cpuUsage(c); best.push((d.user + d.system) / N); }
  console.log(label.padEnd(30), Math.min(...best).toFixed(1), 'us cpu');
}
const w = Number(process.argv[2]);
if (w) { const m0 = process.memoryUsage().heapUsed; const c = process.cpuUsage(); secp256k1.utils.precompute(w); const d = process.cpuUsage(c); console.log('W', w, 'precompute cpu ms', ((d.user+d.system)/1000).toFixed(0), 'heap MB', ((process.memoryUsage().heapUsed - m0)/1e6).toFixed(1)); }
time('scure priv deriveChild W' + (w || 'default'), (i) => ext.deriveChild(i));
