/**
 * `npx tsx test/bench/hop-cost.ts`: what one call from the gateway to the daemon costs the caller
 * in grpc-js, as a unary call (an HTTP/2 stream per call) and as a message on an open stream (how
 * RelayService carries it). A trivial server in a child process answers every call with a 4.7 KB
 * body (an invoice's size); 16 calls in flight, 3 windows of 4 s each, the first one warming up.
 * This is the measurement behind the relay (docs/architecture.md, The gateway's hop; BENCHMARKS.md scenario 2).
 */
import { fork } from 'node:child_process';
import * as grpc from '@grpc/grpc-js';

const BODY = Buffer.alloc(4700, 120);
const IN_FLIGHT = 16;
const WINDOW_MS = 4000;
const same = (b: Buffer): Buffer => b;
const unary = { path: '/bench.Hop/Unary', requestStream: false, responseStream: false, requestSerialize: same, requestDeserialize: same, responseSerialize: same, responseDeserialize: same } as const;
const stream = { path: '/bench.Hop/Stream', requestStream: true, responseStream: true, requestSerialize: same, requestDeserialize: same, responseSerialize: same, responseDeserialize: same } as const;

function serve(): void {
  const server = new grpc.Server();
  server.addService({ Unary: unary, Stream: stream } as unknown as grpc.ServiceDefinition, {
    Unary: (_call: unknown, callback: grpc.sendUnaryData<Buffer>) => callback(null, BODY),
    // The first 4 bytes of a request are its id; the answer starts with them.
    Stream: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
      call.on('data', (b: Buffer) => call.write(Buffer.concat([b.subarray(0, 4), BODY])));
      call.on('end', () => call.end());
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    process.send!(port);
  });
}

/** Calls per second and caller CPU per call over one window, `IN_FLIGHT` callers looping on `one`. */
async function measure(one: () => Promise<void>): Promise<{ rate: number; cpuUs: number }> {
  const end = Date.now() + WINDOW_MS;
  let calls = 0;
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (Date.now() < end) {
        await one();
        calls++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { rate: calls / (WINDOW_MS / 1000), cpuUs: (cpu.user + cpu.system) / calls };
}

async function main(): Promise<void> {
  const child = fork(__filename, ['serve'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (p) => resolve(p as number)));
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc-node.flow_control_window': 8 * 1024 * 1024 });
  const metadata = new grpc.Metadata();
  metadata.set('x-service-key', 'pk_bench');
  metadata.set('x-service-signature', 'f'.repeat(64));
  const request = Buffer.alloc(300, 97);
  const viaUnary = () =>
    new Promise<void>((resolve, reject) => client.makeUnaryRequest(unary.path, same, same, request, metadata, { deadline: Date.now() + 5000 }, (err) => (err ? reject(err) : resolve())));
  const duplex = client.makeBidiStreamRequest(stream.path, same, same, new grpc.Metadata());
  const waiting = new Map<number, () => void>();
  duplex.on('data', (b: Buffer) => {
    const id = b.readUInt32BE(0);
    waiting.get(id)?.();
    waiting.delete(id);
  });
  let nextId = 0;
  const viaStream = () =>
    new Promise<void>((resolve) => {
      const id = nextId++ >>> 0;
      waiting.set(id, resolve);
      const message = Buffer.from(request);
      message.writeUInt32BE(id, 0);
      duplex.write(message);
    });
  for (const [name, one] of [
    ['unary call', viaUnary],
    ['stream message', viaStream],
  ] as const) {
    const windows = [];
    for (let i = 0; i < 3; i++) windows.push(await measure(one));
    const [, ...measured] = windows;
    for (const w of measured) process.stdout.write(`${name}: ${w.rate.toFixed(0)} calls/s, ${w.cpuUs.toFixed(0)} µs of caller CPU per call\n`);
  }
  // The stream's end (cancelled, or reset by the child going away) is expected now.
  duplex.on('error', () => undefined);
  duplex.cancel();
  client.close();
  child.kill();
}

if (process.argv[2] === 'serve') serve();
else
  main().catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
