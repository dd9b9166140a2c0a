/**
 * Which links the page puts into an href. The daemon builds every one from the invoice row; these
 * checks are the page's second line: a link that is not of the expected kind is dropped, never
 * shown (the html tag already escapes it, so this is about what a click may open).
 */
const WALLET_SCHEMES: ReadonlySet<string> = new Set(['ethereum:', 'tron:', 'ton:', 'solana:']);
const MAX_LINK = 2048;

/** A payment link of one of the four families' schemes (EIP-681, TRON, TON transfer, Solana Pay). */
export function walletLink(value: string | undefined): string | null {
  if (!value || value.length > MAX_LINK || /[\s"'<>`]/.test(value)) return null;
  try {
    return WALLET_SCHEMES.has(new URL(value).protocol) ? value : null;
  } catch {
    return null;
  }
}

/** Only absolute http(s) URLs become links; anything else (javascript:, data:, relative) is dropped. */
export function httpUrl(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** An explorer link or a support page: https only. */
export function httpsUrl(value: string | undefined): string | null {
  const url = httpUrl(value);
  return url?.startsWith('https:') ? url : null;
}

/** A support address as a mailto: target; anything that could add headers or a second address is dropped. */
export function mailtoOf(email: string | undefined): string | null {
  if (!email || email.length > 254 || !/^[^\s@<>"'()[\]\\,;:?&=%]+@[^\s@<>"'()[\]\\,;:?&=%]+$/.test(email)) return null;
  return `mailto:${email}`;
}

/** "0B5E-7C1E": the first 8 hex digits of the invoice uuid, for a buyer to read out or type. */
export function shortReference(uuid: string): string {
  const hex = uuid.replace(/-/g, '').slice(0, 8).toUpperCase();
  return `${hex.slice(0, 4)}-${hex.slice(4)}`;
}
