import { EventEmitter } from 'node:events';
import type { ServerWritableStream } from '@grpc/grpc-js';
import pino from 'pino';
import type { InvoiceActors } from '../../actors/invoices/invoice-actors';
import { streamInvoiceChanges, type InvoiceStreamContext, type StreamedState } from './invoice-stream';

const UUID = '11111111-1111-4111-8111-111111111111';

/** The committed state of one invoice, and the actor system's update events. */
class World {
  status = 'pending';
  readonly updates = new EventEmitter();
  /** A change committed by the invoice actor: state first, then the event (as InvoiceActors does). */
  commit(status: string, uuid = UUID): void {
    this.status = status;
    this.updates.emit('update', { uuid, reason: status });
  }
  ctx(): InvoiceStreamContext {
    return { invoiceActors: { updates: this.updates } as unknown as InvoiceActors, logger: pino({ level: 'silent' }) };
  }
}

/** A server stream that records what it was sent; `cancel()` is the client going away. */
function fakeCall(): { call: ServerWritableStream<unknown, string>; sent: string[]; cancel(): void } {
  const sent: string[] = [];
  const em = new EventEmitter() as EventEmitter & { cancelled: boolean; write(m: string): boolean };
  em.cancelled = false;
  em.write = (m: string) => (sent.push(m), true);
  return { call: em as unknown as ServerWritableStream<unknown, string>, sent, cancel: () => ((em.cancelled = true), em.emit('cancelled')) };
}

const state = (status: string): StreamedState<string> => ({ message: status, open: status !== 'paid', key: status });

describe('streamInvoiceChanges: subscribe, then load', () => {
  it('sends a change committed while the first state was being read (the lost-final-paid window)', async () => {
    const w = new World();
    const { call, sent } = fakeCall();
    let loads = 0;
    const done = streamInvoiceChanges(w.ctx(), call, UUID, async () => {
      const read = w.status; // the snapshot read happens before the commit below...
      if (loads++ === 0) w.commit('paid'); // ...and the final change commits right after it
      return state(read);
    });
    await done; // ends because the streamed invoice closed: the final state was sent
    expect(sent).toEqual(['pending', 'paid']);
  });

  it('drops a change the snapshot already contained (no duplicate message)', async () => {
    const w = new World();
    const { call, sent, cancel } = fakeCall();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let loads = 0;
    const done = streamInvoiceChanges(w.ctx(), call, UUID, async () => {
      if (loads++ === 0) {
        w.commit('confirming'); // committed and announced before the snapshot reads it
        await gate;
      }
      return state(w.status);
    });
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(sent).toEqual(['confirming']);
    expect(loads).toBe(2); // the announced change was loaded, and found already sent
    w.commit('confirming', '22222222-2222-4222-8222-222222222222'); // another invoice: ignored
    w.commit('paid');
    await done;
    expect(sent).toEqual(['confirming', 'paid']);
    cancel(); // after the end: harmless
    expect(w.updates.listenerCount('update')).toBe(0);
  });

  it('after changes queued behind a slow load, ends on the latest committed state (each load reads what is committed)', async () => {
    const w = new World();
    const { call, sent } = fakeCall();
    const snapshots: string[] = [];
    let loads = 0;
    const done = streamInvoiceChanges(w.ctx(), call, UUID, async (reason) => {
      const n = loads++;
      const read = w.status;
      snapshots.push(reason);
      if (n === 0) {
        w.commit('confirming');
        await new Promise((r) => setTimeout(r, 30));
        w.commit('paid');
      }
      return state(read);
    });
    await done;
    // The first queued load already reads the committed (and final) 'paid'; the stream then ends.
    expect(sent).toEqual(['pending', 'paid']);
    expect(snapshots).toEqual(['snapshot', 'confirming']);
  });

  it("fails with the first load's error and unsubscribes; a cancelled client ends the stream", async () => {
    const w = new World();
    const missing = streamInvoiceChanges(w.ctx(), fakeCall().call, UUID, async () => {
      throw new Error('invoice not found');
    });
    await expect(missing).rejects.toThrow('invoice not found');
    expect(w.updates.listenerCount('update')).toBe(0);

    const { call, sent, cancel } = fakeCall();
    const open = streamInvoiceChanges(w.ctx(), call, UUID, async () => state(w.status));
    await new Promise((r) => setTimeout(r, 10));
    cancel();
    await open;
    w.commit('paid');
    expect(sent).toEqual(['pending']);
    expect(w.updates.listenerCount('update')).toBe(0);
  });
});
