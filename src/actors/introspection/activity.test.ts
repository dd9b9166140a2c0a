import { ActorActivity } from './activity';
import { invoiceTimers, relative, withdrawalTimers } from './timers';
import { createInvoiceContext } from '../../domain/invoice-context';
import { createWithdrawalContext } from '../../domain/withdrawal-context';

describe('ActorActivity', () => {
  const at = new Date('2026-01-01T00:00:00Z');

  it('keeps the newest records per actor, forgets closed actors, and feeds subscribers', () => {
    const activity = new ActorActivity('invoice', () => at, 3);
    const fed: string[] = [];
    const off = activity.subscribe((r) => fed.push(`${r.id}:${r.type}`));
    activity.subscribe(() => {
      throw new Error('a broken observer');
    });
    for (let i = 1; i <= 5; i++) activity.record('a', 'TON', `E${i}`, { i });
    activity.record('b', null, 'X', null);
    expect(activity.last('a').map((r) => r.type)).toEqual(['E3', 'E4', 'E5']);
    expect(activity.last('a')[0]).toMatchObject({ kind: 'invoice', id: 'a', network: 'TON', payload: { i: 3 }, at });
    expect(fed).toEqual(['a:E1', 'a:E2', 'a:E3', 'a:E4', 'a:E5', 'b:X']);
    off();
    activity.record('b', null, 'Y', null);
    expect(fed).toHaveLength(6);
    activity.forget('a');
    expect(activity.last('a')).toEqual([]);
    expect(activity.last('b').map((r) => r.type)).toEqual(['X', 'Y']);
  });
});

describe('pending timers', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const ctx = createInvoiceContext({ uuid: 'u', payAmount: '10', requiredConfirmations: 3, expiresAt: '2026-01-01T00:30:05Z', now, lateWindowMs: 3_600_000 });

  it('an open invoice waits for its expiry; an ended one for the end of its late-payment window', () => {
    expect(invoiceTimers(ctx, 'pending', now)).toEqual(['expiry at 2026-01-01T00:30:05.000Z (in 30m 5s)']);
    const paid = { ...ctx, status: 'paid' as const, endedAt: '2026-01-01T00:10:00.000Z' };
    expect(invoiceTimers(paid, 'paid', now)).toEqual(['late_window_end at 2026-01-01T01:10:00.000Z (in 1h 10m)']);
    expect(invoiceTimers(paid, 'closed', now)).toEqual([]);
    expect(relative('2025-12-31T23:00:00Z', now)).toBe('due');
  });

  it('a waiting withdrawal polls within its interval', () => {
    const w = createWithdrawalContext({ uuid: 'w', network: 'TRC20', address: 'T', netPayout: '5', requiredConfirmations: 19, review: false, pollIntervalMs: 250 });
    expect(withdrawalTimers(w, { processing: { confirming: 'waiting' } })).toEqual(['payout status check within 250 ms (state waiting)']);
    expect(withdrawalTimers(w, 'review')).toEqual([]);
  });
});
