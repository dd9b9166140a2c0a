import type { NetworkCode } from './networks';

/**
 * Block-explorer links of the checkout page (issue 39). A template is an https URL with `{tx}`
 * exactly once, where the transaction hash goes (percent-encoded). Each network has a mainnet
 * default, which an operator may replace (a testnet explorer, another site) or switch off
 * (`chainpay networks set-explorer`). A devnet transaction is on no public explorer, so devnet has
 * no default: only a template the operator set explicitly (a local explorer, a demo) gives a link there.
 */
export const DEFAULT_EXPLORER_TX_URLS: Readonly<Record<NetworkCode, string>> = {
  TRC20: 'https://tronscan.org/#/transaction/{tx}',
  BEP20: 'https://bscscan.com/tx/{tx}',
  TON: 'https://tonviewer.com/transaction/{tx}',
  POLYGON: 'https://polygonscan.com/tx/{tx}',
  ARBITRUM: 'https://arbiscan.io/tx/{tx}',
  SOLANA: 'https://solscan.io/tx/{tx}',
};

export const TX_PLACEHOLDER = '{tx}';

/** Why a template was refused: the short reason goes into the ValidationError's message. */
export function explorerTemplateProblem(template: string): string | null {
  if (template.length > 500) return 'is longer than 500 characters';
  if (template.split(TX_PLACEHOLDER).length !== 2) return 'must contain {tx} exactly once';
  let url: URL;
  try {
    url = new URL(template.replace(TX_PLACEHOLDER, 'tx'));
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.username || url.password) return 'must not carry credentials';
  return null;
}

/**
 * The template in force: the stored one ('' = none); when none is stored, the mainnet default on a
 * live daemon and nothing on devnet. A stored template that is no longer valid (edited by hand)
 * gives none rather than a bad link.
 */
export function explorerTemplate(code: NetworkCode, stored: string | null, livemode: boolean): string | null {
  if (stored === null && !livemode) return null;
  const template = stored ?? DEFAULT_EXPLORER_TX_URLS[code];
  if (template === '' || explorerTemplateProblem(template) !== null) return null;
  return template;
}

/** The link of one transaction, or '' when the network has no template or there is no hash. */
export function explorerTxUrl(template: string | null, txHash: string): string {
  if (template === null || txHash === '') return '';
  return template.replace(TX_PLACEHOLDER, encodeURIComponent(txHash));
}
