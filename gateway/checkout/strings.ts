import { EN } from './i18n/en';
import { ES } from './i18n/es';
import { RU } from './i18n/ru';
import type { CheckoutStrings } from './i18n/types';

/**
 * The buyer's language: one table per language in ./i18n (type CheckoutStrings). To add one, add
 * its table to LANGUAGES under its BCP 47 primary tag; the switcher lists it and the key test
 * (test/checkout/strings.test.ts) checks it has every key.
 */
export type { CheckoutStrings } from './i18n/types';
export { EN } from './i18n/en';

export const LANGUAGES: Readonly<Record<string, CheckoutStrings>> = { en: EN, es: ES, ru: RU };

/** The buyer's text for a refusal code (see `refusals`). */
export function buyerRefusal(s: CheckoutStrings, code: string): string {
  const refusals: Readonly<Record<string, string>> = s.refusals;
  return Object.hasOwn(refusals, code) ? refusals[code]! : s.chooseFailed;
}

/** A language we have, by its tag (the switcher's `?lang=`), else undefined. */
export function languageByTag(tag: string | null | undefined): CheckoutStrings | undefined {
  const primary = (tag ?? '').trim().toLowerCase().split('-')[0]!;
  // Own keys only: "constructor" or "__proto__" must not find Object.prototype's members.
  return primary !== '' && Object.hasOwn(LANGUAGES, primary) ? LANGUAGES[primary] : undefined;
}

/**
 * The switcher's choice (`?lang=` on the page, its event stream and its form) when it names a
 * language we have; else the first language of Accept-Language we have (by q order); else English.
 */
export function stringsFor(acceptLanguage: string | undefined, chosen?: string | null): CheckoutStrings {
  const picked = languageByTag(chosen);
  if (picked) return picked;
  const wanted = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? '1',
      );
      return { tag, q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((w) => w.tag !== '' && w.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const w of wanted) {
    const found = languageByTag(w.tag);
    if (found) return found;
  }
  return EN;
}
