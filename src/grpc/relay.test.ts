import { Metadata, status, type ServerUnaryCall, type ServiceDefinition, type sendUnaryData } from '@grpc/grpc-js';
import pino from 'pino';
import { Relay } from './relay';
import type { RelayResult } from './generated/chainpay/v1/relay';

type Result = Omit<RelayResult, 'id'>;
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
  relay.dispatch({ id: 1, method: PATH, request: Buffer.from(request, 'utf8'), metadata }, (r) => answers.push(r));
  await new Promise((resolve) => setImmediate(resolve));
  return answers;
}

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
    relay.dispatch({ id: 1, method: '/test.Echo/Other', request: Buffer.alloc(0), metadata: [] }, (r) => answers.push(r));
    expect(called).toBe(false);
    expect(answers).toEqual([{ code: status.UNIMPLEMENTED, response: Buffer.alloc(0), details: 'unknown method /test.Echo/Other', trailers: [] }]);
  });
});
