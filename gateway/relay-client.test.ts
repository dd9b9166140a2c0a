import * as grpc from '@grpc/grpc-js';
import { RelayServiceService, type RelayCalls, type RelayResults, type RelayServiceServer } from '../src/grpc/generated/chainpay/v1/relay';
import { CallCancellation } from './call-cancellation';
import type { UnaryMethod } from './daemon-client';
import { RelayClient } from './relay-client';

/** A method whose request and response are UTF-8 strings. */
const echo: UnaryMethod<string, string> = {
  path: '/test.Echo/Say',
  requestStream: false,
  responseStream: false,
  requestSerialize: (s) => Buffer.from(s, 'utf8'),
  responseDeserialize: (b) => b.toString('utf8'),
};

/**
 * The gateway's relay client against a real gRPC server whose RelayBatched records the size of
 * every RelayCalls message it receives (and each call's timeout_ms, and the ids cancelled) and
 * answers each call with its request reversed, the results of one message in reverse order and in
 * one message of their own; a request starting with 'hold' is never answered.
 */
async function recordingServer(): Promise<{ client: RelayClient; received: number[]; timeouts: Map<string, number>; cancelled: number[]; stop: () => Promise<void> }> {
  const received: number[] = [];
  const timeouts = new Map<string, number>();
  const cancelled: number[] = [];
  const server = new grpc.Server();
  const implementation: RelayServiceServer = {
    relayBatched: (call) => {
      call.on('data', (batch: RelayCalls) => {
        if (batch.calls.length > 0) received.push(batch.calls.length);
        cancelled.push(...batch.cancelled);
        for (const c of batch.calls) timeouts.set(Buffer.from(c.request).toString('utf8'), c.timeout_ms);
        const answered = batch.calls.filter((c) => !Buffer.from(c.request).toString('utf8').startsWith('hold'));
        if (answered.length === 0) return;
        const results: RelayResults = {
          results: answered.map((c) => ({ id: c.id, code: 0, response: Buffer.from([...Buffer.from(c.request).toString('utf8')].reverse().join(''), 'utf8'), details: '', trailers: [] })).reverse(),
        };
        call.write(results);
      });
      call.on('end', () => call.end());
    },
  };
  server.addService(RelayServiceService, implementation as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  const channel = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const client = new RelayClient(channel, () => Promise.reject(new Error('no direct calls in this test')));
  return {
    client,
    received,
    timeouts,
    cancelled,
    stop: async () => {
      client.close();
      channel.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}

describe('RelayClient', () => {
  it('sends the calls made in one turn as one message, and settles each with its own result', async () => {
    const s = await recordingServer();
    try {
      const deadline = Date.now() + 5000;
      // The stream opens on the first call; warm it so the batch below is measured alone.
      expect(await s.client.call(echo, 'warm', new grpc.Metadata(), deadline)).toBe('mraw');
      const words = Array.from({ length: 25 }, (_, i) => `call-${i}`);
      const answers = await Promise.all(words.map((w) => s.client.call(echo, w, new grpc.Metadata(), deadline)));
      expect(answers).toEqual(words.map((w) => [...w].reverse().join('')));
      expect(s.received).toEqual([1, 25]);
      // Calls made in later turns go in later messages.
      const a = s.client.call(echo, 'a', new grpc.Metadata(), deadline);
      await new Promise((r) => setTimeout(r, 20));
      const b = s.client.call(echo, 'b', new grpc.Metadata(), deadline);
      expect(await Promise.all([a, b])).toEqual(['a', 'b']);
      expect(s.received).toEqual([1, 25, 1, 1]);
    } finally {
      await s.stop();
    }
  });

  it('cuts the calls of one turn into messages the daemon accepts (4 MiB at most): 100 calls with 60 KB bodies', async () => {
    const s = await recordingServer();
    try {
      const deadline = Date.now() + 10_000;
      expect(await s.client.call(echo, 'warm', new grpc.Metadata(), deadline)).toBe('mraw');
      const bodies = Array.from({ length: 100 }, (_, i) => `${i}:`.padEnd(60_000, String.fromCharCode(97 + (i % 26))));
      const answers = await Promise.all(bodies.map((b) => s.client.call(echo, b, new grpc.Metadata(), deadline)));
      expect(answers.every((a, i) => a === [...bodies[i]!].reverse().join(''))).toBe(true);
      const batches = s.received.slice(1);
      expect(batches.reduce((a, b) => a + b, 0)).toBe(100);
      // 1 MiB per message at most: 17 calls of ~60 KB.
      expect(Math.max(...batches)).toBeLessThanOrEqual(17);
    } finally {
      await s.stop();
    }
  });

  it("sends each call's time left to its deadline (0 for none), as grpc-timeout carries it", async () => {
    const s = await recordingServer();
    try {
      const t0 = Date.now();
      expect(await s.client.call(echo, 'five', new grpc.Metadata(), t0 + 5_000)).toBe('evif');
      expect(await s.client.call(echo, 'none', new grpc.Metadata(), Infinity)).toBe('enon');
      const sent = s.timeouts.get('five')!;
      expect(sent).toBeLessThanOrEqual(5_000);
      expect(sent).toBeGreaterThan(5_000 - (Date.now() - t0) - 2);
      expect(s.timeouts.get('none')).toBe(0);
      // A deadline already past fails at once, DEADLINE_EXCEEDED, and is not sent.
      await expect(s.client.call(echo, 'late', new grpc.Metadata(), Date.now() - 1)).rejects.toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
      await new Promise((r) => setTimeout(r, 50));
      expect(s.timeouts.has('late')).toBe(false);
    } finally {
      await s.stop();
    }
  });

  it('a cancelled call rejects CANCELLED at once and its id follows it to the daemon; the others are answered', async () => {
    const s = await recordingServer();
    try {
      const deadline = Date.now() + 10_000;
      expect(await s.client.call(echo, 'warm', new grpc.Metadata(), deadline)).toBe('mraw');
      const cancellation = new CallCancellation();
      const held = s.client.call(echo, 'hold-1', new grpc.Metadata(), deadline, cancellation);
      const other = s.client.call(echo, 'other', new grpc.Metadata(), deadline);
      expect(await other).toBe('rehto');
      cancellation.cancel();
      await expect(held).rejects.toMatchObject({ code: grpc.status.CANCELLED, details: 'Cancelled on client' });
      for (let i = 0; i < 100 && s.cancelled.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(s.cancelled).toEqual([2]); // 'warm' was call 1
      // Cancelled before it was made: never sent.
      const early = new CallCancellation();
      early.cancel();
      await expect(s.client.call(echo, 'hold-early', new grpc.Metadata(), deadline, early)).rejects.toMatchObject({ code: grpc.status.CANCELLED });
      // Cancelled after it was answered: nothing to cancel, nothing sent.
      const late = new CallCancellation();
      expect(await s.client.call(echo, 'done', new grpc.Metadata(), deadline, late)).toBe('enod');
      late.cancel();
      await new Promise((r) => setTimeout(r, 50));
      expect(s.cancelled).toEqual([2]);
      expect(s.timeouts.has('hold-early')).toBe(false);
    } finally {
      await s.stop();
    }
  });
});
