import { Metadata, status, type MetadataValue, type ServerDuplexStream, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { RelayServiceService, type RelayCall, type RelayCalls, type RelayMetadata, type RelayResult, type RelayResults, type RelayServiceServer } from './generated/chainpay/v1/relay';
import { encodeRelayResults } from './relay-result-encoding';
import { RelayedCall, type RelayOutcome, type Settle } from './relayed-call';
import { DeadlineTimer } from '../lib/deadline-timer';
import { WriteBatcher } from '../lib/write-batcher';

type UnaryImplementation = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

interface RelayedMethod {
  readonly deserialize: (bytes: Buffer) => unknown;
  readonly serialize: (value: unknown) => Buffer;
  readonly implementation: UnaryImplementation;
}

/** What a handler's callback may be given as an error (grpc-js's ServerErrorResponse, loosely). */
interface HandlerError {
  readonly code?: number;
  readonly details?: string;
  readonly message?: string;
  readonly metadata?: Metadata;
}

/**
 * The daemon's end of RelayService (proto/chainpay/v1/relay.proto): each RelayCall runs the very
 * unary implementation registered for its method, with the request and metadata it carries, and
 * its outcome (response or status, details and trailers) goes back as a RelayResult. So a relayed
 * call authenticates, validates and fails exactly as a direct one; only the transport differs.
 * The handler also sees the call's deadline and its cancellation as on a unary call (RelayedCall).
 *
 * Invariant: every call accepted on a stream gets exactly one result while the stream is open,
 * unless the gateway cancelled it (then none). The end of a stream cancels its calls in flight.
 */
export class Relay {
  readonly #methods = new Map<string, RelayedMethod>();
  readonly #streams = new Set<RelayStream>();
  #draining = false;

  constructor(private readonly logger: Logger) {}

  /** Makes every unary method of a service relayable (streaming methods are not). */
  register(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void {
    for (const [name, method] of Object.entries(definition)) {
      if (method.requestStream || method.responseStream) continue;
      const impl = implementation[name];
      if (typeof impl !== 'function') continue;
      this.#methods.set(method.path, {
        deserialize: method.requestDeserialize as (bytes: Buffer) => unknown,
        serialize: method.responseSerialize as (value: unknown) => Buffer,
        implementation: impl as UnaryImplementation,
      });
    }
  }

  /** Adds RelayService to a server (after the services it relays were registered). */
  addTo(server: { addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void }): void {
    const implementation: RelayServiceServer = { relayBatched: (call) => this.#open(call) };
    // Results are written with an exact-size encoder (same bytes as the generated one).
    const definition = { ...RelayServiceService, relayBatched: { ...RelayServiceService.relayBatched, responseSerialize: encodeRelayResults } };
    server.addService(definition, implementation);
  }

  /**
   * Shutdown: calls that arrive from now on are refused with UNAVAILABLE (the gateway answers 503);
   * each stream ends once its calls in flight have their results, so the server's graceful
   * shutdown is not held up by streams that would otherwise stay open.
   */
  drain(): void {
    this.#draining = true;
    for (const s of this.#streams) s.endWhenIdle();
  }

  get draining(): boolean {
    return this.#draining;
  }

  #open(call: ServerDuplexStream<RelayCalls, RelayResults>): void {
    const stream = new RelayStream(call, this);
    this.#streams.add(stream);
    const forget = () => this.#streams.delete(stream);
    call.on('close', forget);
    call.on('error', forget);
    call.on('cancelled', forget);
    if (this.#draining) stream.endWhenIdle();
  }

  /**
   * Runs one call. `settle` is called exactly once: with the call's outcome, or with null if the
   * call was cancelled first (RelayedCall.cancel). Returns the running call (to cancel it), or null
   * when the call was refused before any handler ran (answered already).
   */
  dispatch(relayed: RelayCall, settle: Settle): RelayedCall | null {
    if (this.#draining) return refused(settle, relayed.id, status.UNAVAILABLE, 'the daemon is shutting down');
    const method = this.#methods.get(relayed.method);
    if (method === undefined) return refused(settle, relayed.id, status.UNIMPLEMENTED, `unknown method ${relayed.method}`);
    let request: unknown;
    let metadata: Metadata;
    try {
      metadata = toMetadata(relayed.metadata);
      request = method.deserialize(Buffer.from(relayed.request));
    } catch (err) {
      return refused(settle, relayed.id, status.INVALID_ARGUMENT, `malformed relayed call: ${(err as Error).message}`);
    }
    const call = new RelayedCall(relayed.id, request, metadata, relayed.method, relayed.timeout_ms, settle);
    const callback = this.#answer(method, call);
    try {
      method.implementation(call as unknown as ServerUnaryCall<unknown, unknown>, callback);
    } catch (err) {
      // Our handlers map every error themselves (grpc/handler.ts); this is a bug, answered as one.
      this.logger.error({ err, method: relayed.method }, 'relayed handler threw');
      callback({ code: status.INTERNAL, details: 'internal error' }, null);
    }
    return call;
  }

  /**
   * The handler's callback: the first answer settles the call (RelayedCall.finish), later ones
   * and any after its deadline or cancel are ignored. Returned as an anonymous arrow (and
   * RelayedCall is a class): under tsx, esbuild's keepNames gives every named closure an
   * Object.defineProperty of its name each time it is created, which on the per-call path cost
   * ~4% of a GET's CPU (profiled).
   */
  #answer(method: RelayedMethod, call: RelayedCall): sendUnaryData<unknown> {
    return (err, value) => {
      if (call.done) return;
      if (err) {
        const e = err as HandlerError;
        return call.finish({ code: e.code ?? status.UNKNOWN, response: Buffer.alloc(0), details: e.details ?? e.message ?? '', trailers: e.metadata ? fromMetadata(e.metadata) : [] });
      }
      try {
        call.finish({ code: status.OK, response: method.serialize(value), details: '', trailers: [] });
      } catch (serializeError) {
        this.logger.error({ err: serializeError, method: call.getPath() }, 'relayed response could not be serialized');
        call.finish(refusal(status.INTERNAL, 'response could not be serialized'));
      }
    };
  }

  /** A call of a stream whose caller cancelled it: logged at debug level, with its request id. */
  logCancelled(call: RelayedCall, why: string): void {
    if (this.logger.isLevelEnabled('debug')) this.logger.debug({ method: call.getPath(), request_id: call.metadata.get('x-request-id')[0], why }, 'relayed call cancelled');
  }
}

/**
 * Results per RelayResults message, at most (one larger result goes alone). The gateway receives
 * up to grpc-js's default of 4 MiB per message; a batch can be far larger (1,000 GETs answered in
 * one turn are ~5 MB of invoices).
 */
export const RELAY_MESSAGE_MAX_BYTES = 1024 * 1024;

class RelayStream {
  /**
   * Calls whose outcome is not settled yet, each at its `slot` (removed by moving the last one into
   * its place): no hashing and no allocation per call. Only a cancel (rare) looks a call up by id,
   * with a scan of the calls in flight.
   */
  readonly #running: RelayedCall[] = [];
  /** The deadlines of the running calls, on one timer: a call past its deadline is expired. */
  readonly #deadlines = new DeadlineTimer((now) => this.#expireDue(now));
  #ending = false;
  #closed = false;
  /** Results ready together go back in one message (WriteBatcher: one socket write, not one each). */
  readonly #results: WriteBatcher<RelayResult>;

  constructor(
    private readonly call: ServerDuplexStream<RelayCalls, RelayResults>,
    private readonly relay: Relay,
  ) {
    this.#results = new WriteBatcher<RelayResult>(
      (results, written) => {
        if (this.#closed) return;
        call.write({ results }, written);
      },
      (r) => r.response.length + r.details.length + 32,
      RELAY_MESSAGE_MAX_BYTES,
    );
    // The gateway went away (or the stream failed): as with unary calls on a lost connection,
    // every call still running is cancelled.
    const closed = () => {
      this.#closed = true;
      this.#deadlines.stop();
      for (const running of [...this.#running]) {
        relay.logCancelled(running, 'the relay stream ended');
        running.cancel();
      }
    };
    call.on('cancelled', closed);
    call.on('error', closed);
    call.on('close', closed);
    call.on('end', () => this.endWhenIdle());
    call.on('data', (batch: RelayCalls) => {
      for (const relayed of batch.calls) {
        const running = relay.dispatch(relayed, this.#settled);
        if (running !== null && !running.done) {
          running.slot = this.#running.length;
          this.#running.push(running);
          this.#deadlines.watch(running.deadline);
        }
      }
      // After the calls: a cancel may name a call of this very message.
      for (const id of batch.cancelled) this.#cancel(id);
    });
  }

  /** Every call of this stream ends here (Settle): its result goes out unless it was cancelled. */
  readonly #settled: Settle = (outcome, id, settled) => {
    if (settled !== null && settled.slot >= 0) {
      const last = this.#running.pop()!;
      if (last !== settled) {
        this.#running[settled.slot] = last;
        last.slot = settled.slot;
      }
      settled.slot = -1;
    }
    if (outcome !== null && !this.#closed) this.#results.push({ id, ...outcome });
    if (this.#ending) this.#endIfIdle();
  };

  /** Expires the running calls past their deadline; returns the earliest deadline left. */
  #expireDue(now: number): number {
    let next = Infinity;
    // A copy: expiring a call takes it out of #running.
    for (const running of [...this.#running]) {
      if (running.deadline <= now) running.expire();
      else if (running.deadline < next) next = running.deadline;
    }
    return next;
  }

  #cancel(id: number): void {
    // Not found: answered already (its result crossed the cancel), or never sent.
    const running = this.#running.find((c) => c.id === id);
    if (running === undefined) return;
    this.relay.logCancelled(running, 'the gateway cancelled it');
    running.cancel();
  }

  endWhenIdle(): void {
    this.#ending = true;
    this.#endIfIdle();
  }

  #endIfIdle(): void {
    if (this.#running.length > 0 || this.#closed) return;
    // Results still queued go out before the end of the stream (a write queued before end() is sent).
    this.#results.flushNow();
    this.#closed = true;
    this.call.end();
  }
}

function refusal(code: status, details: string): RelayOutcome {
  return { code, response: Buffer.alloc(0), details, trailers: [] };
}

/** A call refused before any handler ran: settled at once, nothing to cancel. */
function refused(settle: Settle, id: number, code: status, details: string): null {
  settle(refusal(code, details), id, null);
  return null;
}

export function toMetadata(entries: readonly RelayMetadata[]): Metadata {
  const md = new Metadata();
  for (const { key, value } of entries) md.add(key, key.endsWith('-bin') ? Buffer.from(value) : Buffer.from(value).toString('latin1'));
  return md;
}

export function fromMetadata(md: Metadata): RelayMetadata[] {
  const entries: RelayMetadata[] = [];
  for (const [key, values] of Object.entries(md.toJSON())) {
    for (const v of values as MetadataValue[]) entries.push({ key, value: typeof v === 'string' ? Buffer.from(v, 'latin1') : v });
  }
  return entries;
}
