import { Metadata, status, type Client, type ClientDuplexStream, type MetadataValue, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { RelayServiceService, type RelayCall, type RelayCalls, type RelayMetadata, type RelayResults } from '../src/grpc/generated/chainpay/v1/relay';
import { DeadlineTimer } from '../src/lib/deadline-timer';
import { WriteBatcher } from '../src/lib/write-batcher';
import type { CallCancellation } from './call-cancellation';
import type { UnaryMethod } from './unary-method';
import { serializeRelayCalls } from './relay-call-encoding';

/** How the relay client calls the daemon directly (a unary call of its own). */
export type DirectCall = <Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: Metadata, deadline: number, cancellation?: CallCancellation) => Promise<Res>;

interface PendingCall {
  readonly method: UnaryMethod<unknown, unknown>;
  readonly request: unknown;
  readonly metadata: Metadata;
  readonly deadline: number;
  readonly cancellation: CallCancellation | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: ServiceError) => void;
  /** The stream the call was written on: its end fails this call (and no call of a later stream). */
  stream: RelayStream | null;
}

/**
 * What a relay stream carries from the gateway: a call, or (a number) the id of a call the
 * gateway cancelled. One queue for both keeps a cancel behind its call.
 */
type Outgoing = RelayCall | number;

/** One relay stream and the batcher of its calls (calls made in the same turn go in one message). */
interface RelayStream {
  readonly call: ClientDuplexStream<RelayCalls, RelayResults>;
  readonly calls: WriteBatcher<Outgoing>;
}

/**
 * Calls per RelayCalls message, at most (one larger call goes alone). The daemon receives up to
 * 4 MiB per message (src/grpc/server.ts); a call carries at most a 64 KiB body and its metadata,
 * but hundreds of them can be made in one turn.
 */
const RELAY_MESSAGE_MAX_BYTES = 1024 * 1024;

/** A call's (or a cancel's) size on the wire, near enough. */
function callSize(c: Outgoing): number {
  if (typeof c === 'number') return 6;
  let size = c.request.length + c.method.length + 22;
  for (const m of c.metadata) size += m.key.length + m.value.length + 8;
  return size;
}

/** Ids are unique among calls in flight; they wrap around far beyond any realistic number in flight. */
const MAX_ID = 0xffffffff;
/** RelayCall.timeout_ms is a uint32; a deadline further away than that is sent as this. */
const MAX_TIMEOUT_MS = 0xffffffff;

/**
 * The gateway's end of RelayService (proto/chainpay/v1/relay.proto): unary calls carried as
 * messages on one long-lived stream, opened on first use and reopened after it ends. A call
 * settles exactly once: with its result, its deadline (DEADLINE_EXCEEDED), its cancellation
 * (CANCELLED), or the end of the stream it was sent on (UNAVAILABLE: the daemon went away or
 * restarted, as a unary call would fail). A daemon without RelayService (UNIMPLEMENTED on the
 * stream) is called directly instead, with the calls it refused resent: UNIMPLEMENTED proves none
 * of them ran.
 *
 * As on a unary call, the daemon's handler learns the deadline (each RelayCall carries the time
 * left, RelayCall.timeout_ms) and the cancellation: a call whose CallCancellation fires is settled
 * CANCELLED here at once and its id is sent in RelayCalls.cancelled, behind the call itself.
 */
export class RelayClient {
  readonly #pending = new Map<number, PendingCall>();
  /** The pending calls' deadlines, on one timer (src/lib/deadline-timer.ts). */
  readonly #deadlines = new DeadlineTimer((now) => this.#expireDue(now));
  #stream: RelayStream | null = null;
  #nextId = 1;
  #unsupported = false;

  constructor(
    private readonly client: Client,
    private readonly direct: DirectCall,
  ) {}

  /** `deadline` is a time (ms since the epoch; Infinity: none), as grpc-js's call option. */
  call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: Metadata, deadline: number, cancellation?: CallCancellation): Promise<Res> {
    if (this.#unsupported) return this.direct(method, request, metadata, deadline, cancellation);
    return new Promise<Res>((resolve, reject) => {
      if (cancellation?.cancelled) return reject(cancelledError());
      const left = deadline - Date.now();
      // Past already: failed as grpc-js fails such a call, without sending it.
      if (left <= 0) return reject(deadlineError());
      const id = this.#takeId();
      const pending: PendingCall = { method: method as UnaryMethod<unknown, unknown>, request, metadata, deadline, cancellation, resolve: resolve as (value: unknown) => void, reject, stream: null };
      this.#pending.set(id, pending);
      this.#deadlines.watch(deadline);
      let bytes: Buffer;
      try {
        bytes = method.requestSerialize(request);
      } catch (err) {
        return this.#settle(id, (p) => p.reject(serviceError(status.INTERNAL, `request could not be serialized: ${(err as Error).message}`, new Metadata())));
      }
      pending.stream = this.#open();
      const timeoutMs = Number.isFinite(left) ? Math.min(Math.ceil(left), MAX_TIMEOUT_MS) : 0;
      pending.stream.calls.push({ id, method: method.path, request: bytes, metadata: entriesOf(metadata), timeout_ms: timeoutMs });
      if (cancellation !== undefined) cancellation.listen(() => this.#cancel(id));
    });
  }

  /** Ends the stream; calls still in flight fail with UNAVAILABLE. */
  close(): void {
    this.#stream?.call.cancel();
    this.#stream = null;
    this.#deadlines.stop();
  }

  #takeId(): number {
    let id = this.#nextId;
    while (this.#pending.has(id)) id = id >= MAX_ID ? 1 : id + 1;
    this.#nextId = id >= MAX_ID ? 1 : id + 1;
    return id;
  }

  #settle(id: number, how: (p: PendingCall) => void): void {
    const p = this.#pending.get(id);
    if (p === undefined) return;
    this.#pending.delete(id);
    p.cancellation?.clear();
    how(p);
  }

  /** Fails the pending calls past their deadline (DEADLINE_EXCEEDED); returns the earliest deadline left. */
  #expireDue(now: number): number {
    let next = Infinity;
    for (const [id, p] of this.#pending) {
      if (p.deadline <= now) this.#settle(id, (q) => q.reject(deadlineError()));
      else if (p.deadline < next) next = p.deadline;
    }
    return next;
  }

  /** The caller gave up: CANCELLED here, and the daemon is told (its handler sees `cancelled`). */
  #cancel(id: number): void {
    const p = this.#pending.get(id);
    if (p === undefined) return;
    const stream = p.stream;
    this.#settle(id, (q) => q.reject(cancelledError()));
    // Queued behind the call itself (same batcher); a stream that has ended cancelled it already.
    if (stream !== null && this.#stream === stream) stream.calls.push(id);
  }

  #open(): RelayStream {
    if (this.#stream !== null) return this.#stream;
    const m = RelayServiceService.relayBatched;
    const call = this.client.makeBidiStreamRequest(m.path, serializeRelayCalls, m.responseDeserialize, new Metadata());
    const calls = new WriteBatcher<Outgoing>(
      (batch, written) => {
        // A stream that has ended takes nothing more: its calls were failed with it ('status').
        if (this.#stream === stream) call.write(relayCalls(batch), written);
      },
      callSize,
      RELAY_MESSAGE_MAX_BYTES,
    );
    const stream: RelayStream = { call, calls };
    this.#stream = stream;
    call.on('data', (batch: RelayResults) => {
      for (const result of batch.results) {
        this.#settle(result.id, (p) => {
          if (result.code !== status.OK) return p.reject(serviceError(result.code, result.details, metadataOf(result.trailers)));
          try {
            // A view, not a copy: the bytes stay alive as long as the decoded response needs them.
            const bytes = result.response;
            p.resolve(p.method.responseDeserialize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
          } catch (err) {
            p.reject(serviceError(status.INTERNAL, `response could not be decoded: ${(err as Error).message}`, new Metadata()));
          }
        });
      }
    });
    // 'status' comes exactly once, whatever ended the stream ('error' too when it is not OK).
    call.on('error', () => undefined);
    call.on('status', (end: StatusObject) => {
      if (this.#stream === stream) this.#stream = null;
      const unimplemented = end.code === status.UNIMPLEMENTED;
      if (unimplemented) this.#unsupported = true;
      for (const [id, pending] of this.#pending) {
        if (pending.stream !== stream) continue;
        this.#settle(id, (p) => {
          if (unimplemented) {
            this.direct(p.method, p.request, p.metadata, p.deadline, p.cancellation).then(p.resolve, p.reject);
          } else {
            p.reject(serviceError(status.UNAVAILABLE, end.code === status.OK ? 'the daemon ended the relay stream' : end.details, new Metadata()));
          }
        });
      }
    });
    return stream;
  }
}

function serviceError(code: status, details: string, metadata: Metadata): ServiceError {
  return Object.assign(new Error(`${code} ${status[code] ?? ''}: ${details}`), { code, details, metadata });
}

/** The errors grpc-js gives a unary call's caller for the same two events. */
function deadlineError(): ServiceError {
  return serviceError(status.DEADLINE_EXCEEDED, 'Deadline exceeded', new Metadata());
}

function cancelledError(): ServiceError {
  return serviceError(status.CANCELLED, 'Cancelled on client', new Metadata());
}

/** A batch as one RelayCalls message: the calls, then the ids cancelled (almost always none). */
function relayCalls(batch: Outgoing[]): RelayCalls {
  let cancels = 0;
  for (const item of batch) if (typeof item === 'number') cancels++;
  if (cancels === 0) return { calls: batch as RelayCall[], cancelled: [] };
  const calls: RelayCall[] = [];
  const cancelled: number[] = [];
  for (const item of batch) {
    if (typeof item === 'number') cancelled.push(item);
    else calls.push(item);
  }
  return { calls, cancelled };
}

function entriesOf(md: Metadata): RelayMetadata[] {
  const entries: RelayMetadata[] = [];
  for (const [key, values] of Object.entries(md.toJSON())) {
    for (const v of values as MetadataValue[]) entries.push({ key, value: typeof v === 'string' ? Buffer.from(v, 'latin1') : v });
  }
  return entries;
}

function metadataOf(entries: readonly RelayMetadata[]): Metadata {
  const md = new Metadata();
  for (const { key, value } of entries) md.add(key, key.endsWith('-bin') ? Buffer.from(value) : Buffer.from(value).toString('latin1'));
  return md;
}
