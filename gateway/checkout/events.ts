import type { IncomingMessage, ServerResponse } from 'node:http';
import { status as GrpcStatus, type Metadata, type ServiceError } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { CheckoutView } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { CheckoutDaemon } from './daemon';
import { setSecurityHeaders } from './http';
import type { CheckoutUpdate } from './update';

export interface EventStreamOptions {
  readonly daemon: CheckoutDaemon;
  readonly uuid: string;
  readonly metadata: Metadata;
  readonly logger: Logger;
  readonly render: (view: CheckoutView) => CheckoutUpdate;
  /** Comment lines keep proxies from timing the idle connection out. */
  readonly heartbeatMs: number;
  /** The stream is ended after this long; EventSource reconnects (to any gateway) and gets a fresh snapshot. */
  readonly maxMs: number;
  /** Milliseconds the browser waits before reconnecting. */
  readonly retryMs: number;
}

/**
 * `GET /pay/<uuid>/events`: server-sent events fed by CheckoutService.WatchCheckout. Each event is
 * a whole state (`event: update`), so a reconnect needs no Last-Event-ID. `event: end` means the
 * daemon closed the invoice: nothing more will change and the page stops listening. Rejects (so
 * the caller answers an HTTP error) only if the daemon refuses before the first state.
 */
export function streamCheckoutEvents(req: IncomingMessage, res: ServerResponse, o: EventStreamOptions): Promise<void> {
  const call = o.daemon.watch(o.uuid, o.metadata);
  let started = false;
  let done = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let lifetime: NodeJS.Timeout | undefined;

  return new Promise<void>((resolve, reject) => {
    const finish = (err?: unknown): void => {
      if (done) return;
      done = true;
      clearInterval(heartbeat);
      clearTimeout(lifetime);
      res.off('close', onClose);
      call.cancel();
      if (!started && err !== undefined) return reject(err);
      if (!res.writableEnded) res.end();
      resolve();
    };
    const onClose = (): void => finish();
    const start = (): void => {
      started = true;
      setSecurityHeaders(res);
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store, no-transform',
        'X-Accel-Buffering': 'no',
      });
      res.write(`retry: ${o.retryMs}\n\n`);
      heartbeat = setInterval(() => res.write(': ping\n\n'), o.heartbeatMs);
      lifetime = setTimeout(() => finish(), o.maxMs);
    };
    call.on('data', (view: CheckoutView) => {
      if (done) return;
      let update: CheckoutUpdate;
      try {
        update = o.render(view);
      } catch (err) {
        o.logger.error({ err, invoiceUuid: o.uuid }, 'checkout update could not be rendered');
        return finish(err);
      }
      if (!started) start();
      res.write(`event: update\ndata: ${JSON.stringify(update)}\n\n`);
    });
    call.on('end', () => {
      if (done) return;
      if (!started) return finish(new Error('the daemon ended the checkout stream without a state'));
      res.write('event: end\ndata: {}\n\n');
      finish();
    });
    call.on('error', (err: ServiceError) => {
      if (done) return;
      if (started && err.code !== GrpcStatus.CANCELLED) o.logger.warn({ err, invoiceUuid: o.uuid }, 'checkout stream from the daemon failed');
      finish(err);
    });
    res.on('close', onClose);
    req.on('error', onClose);
  });
}
