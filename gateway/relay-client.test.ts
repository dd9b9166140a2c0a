import * as grpc from '@grpc/grpc-js';
import { RelayServiceService, type RelayCalls, type RelayResults, type RelayServiceServer } from '../src/grpc/generated/chainpay/v1/relay';
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
 * every RelayCalls message it receives and answers each call with its request reversed, the
 * results of one message in reverse order and in one message of their own.
 */
async function recordingServer(): Promise<{ client: RelayClient; received: number[]; stop: () => Promise<void> }> {
  const received: number[] = [];
  const server = new grpc.Server();
  const implementation: RelayServiceServer = {
    relayBatched: (call) => {
      call.on('data', (batch: RelayCalls) => {
        received.push(batch.calls.length);
        const results: RelayResults = {
          results: batch.calls
            .map((c) => ({ id: c.id, code: 0, response: Buffer.from([...Buffer.from(c.request).toString('utf8')].reverse().join(''), 'utf8'), details: '', trailers: [] }))
            .reverse(),
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
});
