import { ValidationError } from './errors';
import { decodeEventCursor, encodeEventCursor, EVENT_LOG_START, parseEventLogQuery } from './event-log-query';

const codeOf = (fn: () => unknown): string | null => {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof ValidationError ? `${e.code}:${e.field}` : String(e);
  }
};

describe('event log query', () => {
  it('defaults: the start of the log, 50 events', () => {
    expect(parseEventLogQuery('')).toEqual({ after: EVENT_LOG_START, limit: 50 });
  });

  it('round-trips cursors up to the largest xid8 and bigint', () => {
    for (const c of [EVENT_LOG_START, { txId: '727', seq: '1' }, { txId: '18446744073709551615', seq: '9223372036854775807' }]) {
      expect(decodeEventCursor(encodeEventCursor(c))).toEqual(c);
      expect(parseEventLogQuery(`after=${encodeEventCursor(c)}&limit=100`)).toEqual({ after: c, limit: 100 });
    }
  });

  it('the non-canonical spelling used below decodes to a valid cursor text (so the test can fail)', () => {
    expect(encodeEventCursor({ txId: '1', seq: '23' })).toBe('ZTEuMS4yMw');
    expect(Buffer.from('ZTEuMS4yMx', 'base64url').toString('utf8')).toBe('e1.1.23');
  });

  it.each([
    ['after=', 'invalid_cursor:after'],
    ['after=%20', 'invalid_cursor:after'],
    [`after=${Buffer.from('e1.1').toString('base64url')}`, 'invalid_cursor:after'],
    [`after=${Buffer.from('e1.1.2.3').toString('base64url')}`, 'invalid_cursor:after'],
    [`after=${Buffer.from('e2.1.2').toString('base64url')}`, 'invalid_cursor:after'],
    [`after=${Buffer.from('e1.-1.2').toString('base64url')}`, 'invalid_cursor:after'],
    [`after=${Buffer.from('e1.1.02').toString('base64url')}`, 'invalid_cursor:after'],
    [`after=${Buffer.from('e1.18446744073709551616.1').toString('base64url')}`, 'invalid_cursor:after'],
    [`after=${Buffer.from('e1.1.9223372036854775808').toString('base64url')}`, 'invalid_cursor:after'],
    [`after=${Buffer.from('e1.1.2').toString('base64')}==`, 'invalid_cursor:after'],
    // A non-canonical spelling of a valid cursor (trailing bits set): not one we gave out.
    ['after=ZTEuMS4yMx', 'invalid_cursor:after'],
    ['limit=0', 'invalid_limit:limit'],
    ['limit=101', 'invalid_limit:limit'],
    ['limit=1.5', 'invalid_limit:limit'],
    ['limit=', 'invalid_limit:limit'],
    ['limit=1&limit=2', 'invalid_limit:limit'],
    ['cursor=abc', 'unknown_field:cursor'],
  ])('%s -> %s', (query, expected) => {
    expect(codeOf(() => parseEventLogQuery(query))).toBe(expected);
  });
});
