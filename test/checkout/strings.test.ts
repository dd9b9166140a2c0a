import { EN, LANGUAGES, buyerRefusal, languageByTag, stringsFor, type CheckoutStrings } from '../../gateway/checkout/strings';

/**
 * Every buyer-facing string is in one table per language (gateway/checkout/i18n). The type makes
 * the compiler refuse a missing key; this walks the tables at run time too, so a table built
 * loosely (a cast, a spread of a partial object) still fails here: same keys at every depth as
 * English, the same kind of value, functions taking the same arguments, no empty text.
 */
type Table = Readonly<Record<string, unknown>>;

function keyProblems(reference: Table, other: Table, at = ''): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(reference)) {
    const path = `${at}${key}`;
    if (!Object.hasOwn(other, key)) {
      problems.push(`missing ${path}`);
      continue;
    }
    const [a, b] = [reference[key], other[key]];
    if (typeof a !== typeof b) problems.push(`${path}: ${typeof b} instead of ${typeof a}`);
    else if (typeof a === 'function' && (a as (...x: unknown[]) => unknown).length !== (b as (...x: unknown[]) => unknown).length) problems.push(`${path}: takes other arguments`);
    else if (typeof a === 'object' && a !== null) problems.push(...keyProblems(a as Table, b as Table, `${path}.`));
    else if (typeof b === 'string' && b.trim() === '') problems.push(`${path}: empty`);
  }
  for (const key of Object.keys(other)) if (!Object.hasOwn(reference, key)) problems.push(`extra ${at}${key}`);
  return problems;
}

/** Every function of a table called with sample arguments: each gives non-empty text that uses them. */
function callProblems(table: Table, at = ''): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(table)) {
    if (typeof value === 'function') {
      const args = ['A1', 'B2', 'C3'].slice(0, value.length);
      const out = (value as (...x: string[]) => unknown)(...args);
      if (typeof out !== 'string' || out.trim() === '') problems.push(`${at}${key}: no text`);
      else for (const arg of args) if (!out.includes(arg)) problems.push(`${at}${key}: drops an argument`);
    } else if (typeof value === 'object' && value !== null) problems.push(...callProblems(value as Table, `${at}${key}.`));
  }
  return problems;
}

describe('checkout strings', () => {
  it('has English, Spanish and Russian', () => {
    expect(Object.keys(LANGUAGES).sort()).toEqual(['en', 'es', 'ru']);
    for (const [tag, table] of Object.entries(LANGUAGES)) expect(table.lang).toBe(tag);
  });

  it.each(Object.keys(LANGUAGES).filter((l) => l !== 'en'))('%s has every key of English, of the same kind, none empty', (tag) => {
    expect(keyProblems(EN as unknown as Table, LANGUAGES[tag] as unknown as Table)).toEqual([]);
  });

  it.each(Object.keys(LANGUAGES))('%s: every phrase with a value uses it', (tag) => {
    // documentTitle(null) is the one phrase that may leave its argument out.
    const { documentTitle, ...rest } = LANGUAGES[tag]!;
    expect(callProblems(rest as unknown as Table)).toEqual([]);
    expect(documentTitle('T9')).toContain('T9');
  });

  it('the key check itself finds a missing, an extra, a mistyped and an empty key', () => {
    const broken = { ...EN, status: { ...EN.status, paid: '' }, result: { ...EN.result, paidTitle: undefined }, copy: 3, extraKey: 'x' } as unknown as Table;
    const { result, ...withoutResult } = broken;
    expect(keyProblems(EN as unknown as Table, broken)).toEqual(
      expect.arrayContaining(['status.paid: empty', 'copy: number instead of string', 'extra extraKey', 'result.paidTitle: undefined instead of string']),
    );
    expect(keyProblems(EN as unknown as Table, withoutResult)).toContain('missing result');
    expect(result).toBeDefined();
  });

  it('picks the switcher’s choice, else Accept-Language by q order, else English', () => {
    const es = LANGUAGES.es!;
    const ru = LANGUAGES.ru!;
    expect(stringsFor('de-DE,de;q=0.9,en;q=0.5')).toBe(EN);
    expect(stringsFor('de-DE,es;q=0.8,ru;q=0.9')).toBe(ru);
    expect(stringsFor('es-MX')).toBe(es);
    expect(stringsFor('ru;q=0, es')).toBe(es);
    expect(stringsFor('ru', 'es')).toBe(es);
    expect(stringsFor('ru', 'xx')).toBe(ru);
    expect(stringsFor('es', '__proto__')).toBe(es);
    expect(stringsFor('constructor')).toBe(EN);
    expect(stringsFor(undefined, null)).toBe(EN);
    expect(languageByTag('RU-ru')).toBe(ru);
    expect(languageByTag('hasOwnProperty')).toBeUndefined();
  });

  it('words a refusal in the buyer’s language, and an unknown code as the generic failure', () => {
    const table: CheckoutStrings = LANGUAGES.ru!;
    expect(buyerRefusal(table, 'rate_limited')).toBe(table.refusals.rate_limited);
    expect(buyerRefusal(table, 'toString')).toBe(table.chooseFailed);
  });
});
