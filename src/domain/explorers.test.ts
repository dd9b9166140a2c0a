import { DEFAULT_EXPLORER_TX_URLS, explorerTemplate, explorerTemplateProblem, explorerTxUrl } from './explorers';
import { NETWORK_CODES } from './networks';

describe('block-explorer templates', () => {
  it('every network has a valid https mainnet default', () => {
    for (const code of NETWORK_CODES) expect(explorerTemplateProblem(DEFAULT_EXPLORER_TX_URLS[code])).toBeNull();
  });

  it('refuses templates that are not https, lack {tx} or carry it twice, or carry credentials', () => {
    expect(explorerTemplateProblem('https://sepolia.etherscan.io/tx/{tx}')).toBeNull();
    expect(explorerTemplateProblem('http://x.example/tx/{tx}')).toBe('must be an https URL');
    expect(explorerTemplateProblem('javascript:alert("{tx}")')).toBe('must be an https URL');
    expect(explorerTemplateProblem('https://x.example/tx/')).toBe('must contain {tx} exactly once');
    expect(explorerTemplateProblem('https://x.example/{tx}/{tx}')).toBe('must contain {tx} exactly once');
    expect(explorerTemplateProblem('https://u:p@x.example/{tx}')).toBe('must not carry credentials');
    expect(explorerTemplateProblem('{tx}')).toBe('is not a URL');
  });

  it('the stored template; when none is stored the mainnet default live and nothing on devnet; nothing when switched off', () => {
    expect(explorerTemplate('TON', null, false)).toBeNull();
    expect(explorerTemplate('TON', '', false)).toBeNull();
    expect(explorerTemplate('TON', 'https://testnet.tonviewer.com/transaction/{tx}', false)).toBe('https://testnet.tonviewer.com/transaction/{tx}');
    expect(explorerTemplate('TON', null, true)).toBe('https://tonviewer.com/transaction/{tx}');
    expect(explorerTemplate('TON', '', true)).toBeNull();
    expect(explorerTemplate('BEP20', 'https://testnet.bscscan.com/tx/{tx}', true)).toBe('https://testnet.bscscan.com/tx/{tx}');
    expect(explorerTemplate('BEP20', 'http://edited-by-hand/{tx}', true)).toBeNull();
  });

  it('fills in the hash percent-encoded', () => {
    expect(explorerTxUrl('https://tonviewer.com/transaction/{tx}', 'ab/c+d=')).toBe('https://tonviewer.com/transaction/ab%2Fc%2Bd%3D');
    expect(explorerTxUrl(null, 'abc')).toBe('');
    expect(explorerTxUrl('https://x.example/{tx}', '')).toBe('');
  });
});
