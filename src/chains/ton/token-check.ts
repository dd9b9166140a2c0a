import { type Address, type Cell, Dictionary } from '@ton/core';
import { sha256_sync } from '@ton/crypto';
import type { NetworkCode } from '../../domain/networks';
import type { TonRpc } from './client';
import { TonJettonDecimalsError } from './token-errors';

/** TEP-64: a jetton whose metadata does not say its decimals has 9. */
const TEP64_DEFAULT_DECIMALS = '9';

/**
 * Start-up check, as TRON's and SOLANA's: the configured master's decimals are the expected ones
 * (6 for USDT). They are read from get_jetton_data's content cell (TEP-64). USDT's master
 * (stablecoin-contract) keeps "decimals" on chain next to its "uri"; the check reads only the chain:
 * an off-chain-only metadata (a bare URI) is refused too, its decimals cannot be checked there
 * (the daemon does not fetch URLs at start).
 */
export async function checkJettonDecimals(rpc: TonRpc, network: NetworkCode, master: Address, shown: string, expected: number): Promise<void> {
  const stack = await rpc.get(master, 'get_jetton_data');
  let decimals: string;
  try {
    stack.readBigNumber(); // total_supply
    stack.readBigNumber(); // mintable
    stack.readAddressOpt(); // admin
    decimals = onchainDecimals(stack.readCell());
  } catch {
    decimals = 'unreadable (get_jetton_data is not a jetton answer)';
  }
  if (decimals !== String(expected)) throw new TonJettonDecimalsError(network, shown, expected, decimals);
}

/** The decimals of a TEP-64 content cell, as a string ('9' when on-chain metadata omits them), or why they cannot be read. */
export function onchainDecimals(content: Cell): string {
  const s = content.beginParse();
  if (s.remainingBits < 8) return 'unreadable (empty metadata)';
  const layout = s.loadUint(8);
  if (layout === 0x01) return 'unknown (metadata off chain only)';
  if (layout !== 0x00) return `unreadable (metadata layout ${layout})`;
  const entries = s.loadDict(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  const entry = entries.get(sha256_sync('decimals'));
  if (entry === undefined) return TEP64_DEFAULT_DECIMALS;
  const value = entry.beginParse();
  // Snake data (0x00) is the only layout a short string like "6" is written in.
  if (value.remainingBits < 8 || value.loadUint(8) !== 0x00) return 'unreadable (decimals entry not snake data)';
  const text = value.loadStringTail().trim();
  return /^\d{1,3}$/.test(text) ? String(Number(text)) : `unreadable (${JSON.stringify(text.slice(0, 16))})`;
}
