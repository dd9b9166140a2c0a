/**
 * How a memo typed by a buyer is matched to an invoice's memo (master_memo networks: TON).
 *
 * Memos are issued in upper case from an alphabet without look-alikes (src/actors/invoices/memo.ts:
 * no 0/O, 1/I/L), but wallets let the buyer type the comment. The buyer's text is taken as:
 *   - Unicode NFKC, so full-width or compatibility forms (e.g. "ＡＢＣ") read as their ASCII letters;
 *   - without invisible format characters (zero-width space/joiners, BOM: Unicode category Cf),
 *     which copy-paste from chats adds;
 *   - without surrounding whitespace;
 *   - in upper case (the database compares with upper(memo): old rows of any case match too).
 * Deliberately NOT mapped: look-alike letters of other scripts (Cyrillic "А", Greek "Α"...). The
 * issued alphabet is ASCII, so such a memo can never name another invoice by mistake; it stays an
 * `unknown_memo` unattributed deposit for the operator to attribute. Inner spaces are kept as typed.
 */
export function memoMatchKey(typed: string): string {
  return typed
    .normalize('NFKC')
    .replace(/\p{Cf}/gu, '')
    .trim()
    .toUpperCase();
}
