import { Metadata, status, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData } from '@grpc/grpc-js';
import pino from 'pino';
import { Relay } from './relay';
import type { RelayedCall, RelayOutcome } from './relayed-call';

/** What `dispatch` settles a call with: its outcome, or null when it was cancelled. */
type Result = RelayOutcome | null;
type Impl = (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => void;

const PATH = '/test.Echo/Say';

/** A relay with one unary method whose messages are UTF-8 strings; serializing the string 'unserializable' throws. */
function relayWith(implementation: Impl): Relay {
  const relay = new Relay(pino({ level: 'silent' }));
  const definition = {
    Say: {
      path: PATH,
      requestStream: false,
      responseStream: false,
      requestDeserialize: (b: Buffer) => b.toString('utf8'),
      responseSerialize: (v: unknown) => {
        if (v === 'unserializable') throw new Error('cannot encode');
        return Buffer.from(String(v), 'utf8');
      },
    },
  } as unknown as ServiceDefinition;
  relay.register(definition, { Say: implementation });
  return relay;
}

/** Every answer `dispatch` gives for one call, collected after the handler's callbacks ran. */
async function answersOf(relay: Relay, request = 'hello', metadata: { key: string; value: Buffer }[] = []): Promise<Result[]> {
  const answers: Result[] = [];
  relay.dispatch({ id: 1, method: PATH, request: Buffer.from(request, 'utf8'), metadata, timeout_ms: 0 }, (r) => answers.push(r));
  await new Promise((resolve) => setImmediate(resolve));
  return answers;
}

/** A handler that records its call and answers only when the test says so. */
function heldHandler() {
  const held: { call?: ServerUnaryCall<unknown, unknown>; answer?: sendUnaryData<unknown>; cancelledEvents: number } = { cancelledEvents: 0 };
  const impl: Impl = (call, callback) => {
    held.call = call;
    held.answer = callback;
    call.on('cancelled', () => held.cancelledEvents++);
  };
  return { held, relay: relayWith(impl) };
}

const tick = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

describe('Relay.dispatch', () => {
  it('hands the handler the request, metadata and path, and answers with its serialized response', async () => {
    let seen: { request: unknown; key: unknown; path: string; peer: string } | undefined;
    const relay = relayWith((call, callback) => {
      seen = { request: call.request, key: call.metadata.get('x-service-key')[0], path: call.getPath(), peer: call.getPeer() };
      callback(null, `echo ${String(call.request)}`);
    });
    const answers = await answersOf(relay, 'hello', [{ key: 'x-service-key', value: Buffer.from('pk_1') }]);
    expect(seen).toEqual({ request: 'hello', key: 'pk_1', path: PATH, peer: 'relay' });
    expect(answers).toEqual([{ code: status.OK, response: Buffer.from('echo hello'), details: '', trailers: [] }]);
  });

  it('answers exactly once when a handler calls back twice', async () => {
    const relay = relayWith((_call, callback) => {
      callback(null, 'first');
      callback({ code: status.INTERNAL, details: 'second' }, null);
      callback(null, 'third');
    });
    const answers = await answersOf(relay);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.response.toString()).toBe('first');
  });

  it('passes a refusal on with its code, details and trailers', async () => {
    const relay = relayWith((_call, callback) => {
      const trailers = new Metadata();
      trailers.set('x-error-code', 'invoice_not_found');
      callback({ code: status.NOT_FOUND, details: 'no such invoice', metadata: trailers }, null);
    });
    const [answer, ...more] = await answersOf(relay);
    expect(more).toEqual([]);
    expect(answer!.code).toBe(status.NOT_FOUND);
    expect(answer!.details).toBe('no such invoice');
    expect(answer!.trailers.map((t) => [t.key, t.value.toString('latin1')])).toEqual([['x-error-code', 'invoice_not_found']]);
  });

  it('a response that cannot be serialized is answered INTERNAL, once', async () => {
    const relay = relayWith((_call, callback) => callback(null, 'unserializable'));
    const answers = await answersOf(relay);
    expect(answers).toEqual([{ code: status.INTERNAL, response: Buffer.alloc(0), details: 'response could not be serialized', trailers: [] }]);
  });

  it('a handler that throws is answered INTERNAL, once, even if it called back first', async () => {
    const throwing = relayWith(() => {
      throw new Error('bug');
    });
    expect(await answersOf(throwing)).toEqual([{ code: status.INTERNAL, response: Buffer.alloc(0), details: 'internal error', trailers: [] }]);
    const calledBackThenThrew = relayWith((_call, callback) => {
      callback(null, 'done');
      throw new Error('bug after answering');
    });
    const answers = await answersOf(calledBackThenThrew);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.code).toBe(status.OK);
  });

  it('refuses an unknown method UNIMPLEMENTED without calling anything', async () => {
    let called = false;
    const relay = relayWith(() => {
      called = true;
    });
    const answers: Result[] = [];
    const running = relay.dispatch({ id: 1, method: '/test.Echo/Other', request: Buffer.alloc(0), metadata: [], timeout_ms: 0 }, (r) => answers.push(r));
    expect(called).toBe(false);
    expect(running).toBeNull();
    expect(answers).toEqual([{ code: status.UNIMPLEMENTED, response: Buffer.alloc(0), details: 'unknown method /test.Echo/Other', trailers: [] }]);
  });
});

describe("a relayed call's deadline and cancellation (as grpc-js gives them on a unary call)", () => {
  it('getDeadline() is the arrival time plus timeout_ms; without a timeout it is Infinity', () => {
    const { held, relay } = heldHandler();
    const before = Date.now();
    const running = relay.dispatch({ id: 1, method: PATH, request: Buffer.from('x'), metadata: [], timeout_ms: 5_000 }, () => undefined);
    const after = Date.now();
    expect(held.call!.getDeadline()).toBeGreaterThanOrEqual(before + 5_000);
    expect(held.call!.getDeadline()).toBeLessThanOrEqual(after + 5_000);
    running!.cancel();
    relay.dispatch({ id: 2, method: PATH, request: Buffer.from('x'), metadata: [], timeout_ms: 0 }, () => undefined);
    expect(held.call!.getDeadline()).toBe(Infinity);
    expect(held.call!.cancelled).toBe(false);
  });

  // The stream's DeadlineTimer calls expire() once the deadline has passed (test/gateway/relay-deadline-cancel.test.ts).
  it('a call that expires is answered DEADLINE_EXCEEDED once, then turns cancelled; the late answer is dropped', async () => {
    const { held, relay } = heldHandler();
    const answers: Result[] = [];
    const running = relay.dispatch({ id: 1, method: PATH, request: Buffer.from('x'), metadata: [], timeout_ms: 30 }, (r) => answers.push(r));
    expect([answers, held.call!.cancelled]).toEqual([[], false]);
    running!.expire();
    running!.expire();
    expect(answers).toEqual([{ code: status.DEADLINE_EXCEEDED, response: Buffer.alloc(0), details: 'Deadline exceeded', trailers: [] }]);
    expect(held.call!.cancelled).toBe(true);
    await tick();
    expect(held.cancelledEvents).toBe(1);
    held.answer!(null, 'too late');
    expect(answers).toHaveLength(1);
  });

  it('a call answered in time keeps its answer: expiring it later does nothing', async () => {
    const { held, relay } = heldHandler();
    const answers: Result[] = [];
    const running = relay.dispatch({ id: 1, method: PATH, request: Buffer.from('x'), metadata: [], timeout_ms: 30 }, (r) => answers.push(r));
    held.answer!(null, 'in time');
    running!.expire();
    await tick();
    expect(answers.map((a) => a?.response.toString())).toEqual(['in time']);
    expect([held.call!.cancelled, held.cancelledEvents]).toEqual([false, 0]);
  });

  it("a cancelled call settles with no result; its handler sees cancelled and one 'cancelled' event, and its answer is dropped", async () => {
    const { held, relay } = heldHandler();
    const answers: Result[] = [];
    const running: RelayedCall | null = relay.dispatch({ id: 1, method: PATH, request: Buffer.from('x'), metadata: [], timeout_ms: 10_000 }, (r) => answers.push(r));
    expect(running).not.toBeNull();
    running!.cancel();
    running!.cancel();
    expect([answers, held.call!.cancelled, running!.done]).toEqual([[null], true, true]);
    await tick();
    expect(held.cancelledEvents).toBe(1);
    held.answer!(null, 'after cancel');
    expect(answers).toEqual([null]);
  });
});
