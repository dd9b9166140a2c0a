import { createInvoiceContext, type InvoiceMachineContext } from './invoice-context';
import type { InvoicePayment, InvoicePaymentState } from './invoice-payment';
import { deriveStatus, type InvoiceStatus } from './invoice-status';
import { stepInvoice as applyInvoiceEvent } from '../../test/support/invoice-machine-step';
import { canChangeNetwork } from './invoice-step';
import { invoiceWebhookEvents } from './invoice-webhooks';

const base = createInvoiceContext({ uuid: 'u', payAmount: '100', requiredConfirmations: 3, expiresAt: '2025-01-01T01:00:00Z', now: '2025-01-01T00:00:00Z' });

function pay(amount: string, state: InvoicePaymentState, late = false, n = 0): InvoicePayment {
  return { key: `0x${n}:0`, txHash: `0x${n}`, eventIndex: 0, from: 'f', amount, blockHeight: 1, confirmations: state === 'confirmed' ? 3 : 0, state, seenAt: base.observedAt, late };
}

function ctx(status: InvoiceStatus, payments: InvoicePayment[], extra: Partial<InvoiceMachineContext> = {}): InvoiceMachineContext {
  return { ...base, status, payments, ...extra };
}

describe('deriveStatus', () => {
  it.each<[string, InvoiceStatus, InvoicePayment[], boolean, InvoiceStatus]>([
    ['nothing yet', 'pending', [], false, 'pending'],
    ['only reverted', 'confirming', [pay('100', 'reverted')], false, 'pending'],
    ['unconfirmed', 'pending', [pay('100', 'confirming')], false, 'confirming'],
    ['confirmed part + unconfirmed rest', 'partially_paid', [pay('60', 'confirmed', false, 1), pay('40', 'confirming', false, 2)], false, 'confirming'],
    ['confirmed part', 'confirming', [pay('60', 'confirmed')], false, 'partially_paid'],
    ['confirmed exact', 'confirming', [pay('100', 'confirmed')], false, 'paid'],
    ['confirmed exact + unconfirmed extra', 'confirming', [pay('100', 'confirmed', false, 1), pay('1', 'confirming', false, 2)], false, 'paid'],
    ['confirmed more', 'confirming', [pay('100.5', 'confirmed')], false, 'overpaid'],
    ['expired, nothing', 'pending', [], true, 'expired'],
    ['expired, part', 'partially_paid', [pay('60', 'confirmed')], true, 'underpaid'],
    ['expired, in-time unconfirmed', 'confirming', [pay('100', 'confirming')], true, 'confirming'],
    ['expired, only late unconfirmed', 'confirming', [pay('60', 'confirmed', false, 1), pay('40', 'confirming', true, 2)], true, 'underpaid'],
    ['ended: late money moves it up', 'expired', [pay('100', 'confirmed', true)], true, 'paid'],
    ['ended: unconfirmed late money waits', 'expired', [pay('100', 'confirming', true)], true, 'expired'],
    ['ended: never moves down', 'paid', [pay('100', 'confirmed'), pay('5', 'reverted', true, 2)], false, 'paid'],
    ['ended: paid -> overpaid', 'paid', [pay('100', 'confirmed', false, 1), pay('5', 'confirmed', true, 2)], false, 'overpaid'],
  ])('%s', (_name, status, payments, expired, expected) => {
    expect(deriveStatus(ctx(status, payments), { expired })).toBe(expected);
  });

  it('applies the tolerance on both sides of expiry', () => {
    const c = ctx('confirming', [pay('99.9', 'confirmed')], { underpaymentTolerance: '0.1' });
    expect(deriveStatus(c, { expired: false })).toBe('paid');
    expect(deriveStatus({ ...c, underpaymentTolerance: '0.05' }, { expired: false })).toBe('partially_paid');
    expect(deriveStatus({ ...c, underpaymentTolerance: '0.05' }, { expired: true })).toBe('underpaid');
  });
});

describe('applyInvoiceEvent', () => {
  it('ignores an unknown key and a confirmations update of a reverted payment', () => {
    const c = applyInvoiceEvent(base, { type: 'TRANSFER_SEEN', payment: { txHash: '0x1', eventIndex: 0, from: 'f', amount: '10', blockHeight: 5, confirmations: 0 }, at: '2025-01-01T00:10:00Z' });
    expect(applyInvoiceEvent(c, { type: 'CONFIRMATIONS', key: 'nope:0', confirmations: 9, at: '2025-01-01T00:11:00Z' }).payments).toEqual(c.payments);
    const reverted = applyInvoiceEvent(c, { type: 'TRANSFER_REVERTED', key: '0x1:0', at: '2025-01-01T00:12:00Z' });
    const after = applyInvoiceEvent(reverted, { type: 'CONFIRMATIONS', key: '0x1:0', confirmations: 9, at: '2025-01-01T00:13:00Z' });
    expect(after).toMatchObject({ status: 'pending', receivedAmount: '0' });
    expect(after.payments[0]!.state).toBe('reverted');
  });

  it('ignores malformed observations instead of throwing inside the actor', () => {
    const bad = { txHash: '0x1', eventIndex: 0, from: 'f', amount: '1e3', blockHeight: 5, confirmations: 0 };
    expect(applyInvoiceEvent(base, { type: 'TRANSFER_SEEN', payment: bad, at: base.observedAt }).payments).toEqual([]);
    expect(applyInvoiceEvent(base, { type: 'TRANSFER_SEEN', payment: { ...bad, amount: '1', eventIndex: -1 }, at: base.observedAt }).payments).toEqual([]);
    expect(applyInvoiceEvent(base, { type: 'NETWORK_CHANGED', payAmount: 'abc', requiredConfirmations: 1 }).payAmount).toBe('100');
  });

  it('never moves time backwards and ignores an unreadable time', () => {
    const c = applyInvoiceEvent(base, { type: 'RESUME', at: '2025-01-01T00:30:00Z' });
    expect(applyInvoiceEvent(c, { type: 'RESUME', at: '2025-01-01T00:10:00Z' }).observedAt).toBe('2025-01-01T00:30:00.000Z');
    expect(applyInvoiceEvent(c, { type: 'RESUME', at: 'yesterday' }).observedAt).toBe('2025-01-01T00:30:00.000Z');
  });

  it('credits nothing once the late-payment window is over', () => {
    const seen = (at: string) => ({ type: 'TRANSFER_SEEN' as const, payment: { txHash: '0x9', eventIndex: 0, from: 'f', amount: '100', blockHeight: 5, confirmations: 9 }, at });
    const expired = applyInvoiceEvent(base, { type: 'RESUME', at: '2025-01-01T01:00:00Z' });
    expect(expired).toMatchObject({ status: 'expired', endedAt: '2025-01-01T01:00:00.000Z' });
    expect(applyInvoiceEvent(expired, seen('2025-01-02T00:59:59.999Z'))).toMatchObject({ status: 'paid', paidLate: true });
    expect(applyInvoiceEvent(expired, seen('2025-01-02T01:00:00Z'))).toMatchObject({ status: 'expired', receivedAmount: '0' });
  });

  it('normalises amounts of payments and of a network change', () => {
    const c = applyInvoiceEvent(base, { type: 'NETWORK_CHANGED', payAmount: '101.50', requiredConfirmations: 20 });
    expect(c).toMatchObject({ payAmount: '101.5', requiredConfirmations: 20 });
    expect(canChangeNetwork(c)).toBe(true);
    const d = applyInvoiceEvent(c, { type: 'TRANSFER_SEEN', payment: { txHash: '0x1', eventIndex: 0, from: 'f', amount: '1.500', blockHeight: 5, confirmations: 0 }, at: '2025-01-01T00:10:00Z' });
    expect(d.payments[0]!.amount).toBe('1.5');
    expect(canChangeNetwork(d)).toBe(false);
    expect(canChangeNetwork(applyInvoiceEvent(base, { type: 'RESUME', at: '2025-01-01T01:00:00Z' }))).toBe(false);
  });
});

describe('createInvoiceContext', () => {
  it('starts pending with nothing received', () => {
    expect(base).toMatchObject({
      status: 'pending',
      receivedAmount: '0',
      confirmations: 0,
      txHash: null,
      paidAt: null,
      paidLate: false,
      lateWindowMs: 86_400_000,
      underpaymentTolerance: '0',
      expiresAt: '2025-01-01T01:00:00.000Z',
    });
  });

  it('refuses an expiry that is not in the future', () => {
    expect(() => createInvoiceContext({ uuid: 'u', payAmount: '1', requiredConfirmations: 1, expiresAt: '2025-01-01T00:00:00Z', now: '2025-01-01T00:00:00Z' })).toThrow(RangeError);
  });
});

describe('invoiceWebhookEvents', () => {
  it('names nothing when nothing changed', () => {
    expect(invoiceWebhookEvents(base, base)).toEqual([]);
  });
});
