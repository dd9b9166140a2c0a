import type { ServerWritableStream } from '@grpc/grpc-js';
import type { InvoiceUpdate } from '../../actors/invoices/invoice-actors';
import type { ServiceContext } from '../context';

/** One state of the watched invoice as the stream would send it. */
export interface StreamedState<T> {
  readonly message: T;
  /** false once the invoice is closed: the stream ends after sending it. */
  readonly open: boolean;
  /** Equal keys mean the caller would see nothing new (the message is then not sent again). */
  readonly key: string;
}

/** What the stream needs of the context: the committed-change events and a logger. */
export type InvoiceStreamContext = Pick<ServiceContext, 'invoiceActors' | 'logger'>;

/**
 * Streams one invoice: the current state, then every committed change, until the invoice is
 * closed (its actor finished) or the client cancels. `load` decides what the caller may see.
 *
 * Invariants:
 * - no committed change is lost: the stream subscribes to updates BEFORE it loads the first
 *   state, so a change committed while (or just after) the snapshot is read is queued and loaded
 *   after it; loads run one at a time in arrival order, each reading the committed state;
 * - no state is sent twice in a row: a load whose `key` equals the last sent one (the snapshot
 *   already contained that change) is dropped;
 * - an error of the first load (e.g. not found) is the stream's error; a later one ends the
 *   stream (the client re-opens it and gets a fresh snapshot).
 */
export function streamInvoiceChanges<T>(ctx: InvoiceStreamContext, call: ServerWritableStream<unknown, T>, uuid: string, load: (reason: string) => Promise<StreamedState<T>>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let finished = false;
    let lastKey: string | undefined;
    let chain: Promise<void> = Promise.resolve();
    const finish = (err?: unknown): void => {
      if (finished) return;
      finished = true;
      ctx.invoiceActors.updates.off('update', onUpdate);
      call.off('cancelled', onEnd);
      call.off('close', onEnd);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onEnd = (): void => finish();
    const enqueue = (reason: string, first: boolean): void => {
      chain = chain
        .then(async () => {
          if (finished || call.cancelled) return;
          const next = await load(reason);
          if (finished || call.cancelled) return;
          if (next.key !== lastKey) {
            lastKey = next.key;
            call.write(next.message);
          }
          if (!next.open) finish();
        })
        .catch((err: unknown) => {
          if (first) return finish(err);
          ctx.logger.warn({ err, invoiceUuid: uuid }, 'invoice stream failed');
          finish();
        });
    };
    const onUpdate = (u: InvoiceUpdate): void => {
      if (u.uuid === uuid) enqueue(u.reason, false);
    };
    // Subscribe first, then load: see the invariants above.
    ctx.invoiceActors.updates.on('update', onUpdate);
    call.on('cancelled', onEnd);
    call.on('close', onEnd);
    enqueue('snapshot', true);
  });
}
