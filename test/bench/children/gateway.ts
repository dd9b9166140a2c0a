/**
 * The gateway alone, in its own process, in front of a daemon in another (the production layout
 * of docker-compose.yml). Logs go to this process's stdout (the bench points it at a file).
 */
import { createGatewayLogger } from '../../../gateway/logger';
import { createGateway, type Gateway } from '../../../gateway/server';
import { serveIpc } from '../support/ipc';
import { cpuMs, Profiler } from '../support/profiler';
import { LoopDelayProbe } from '../support/loop-delay';

const loopDelay = new LoopDelayProbe();

let gateway: Gateway | null = null;
const profiler = new Profiler();

serveIpc(
  {
    start: async (a: { grpcAddress: string; logLevel?: string }) => {
      gateway = createGateway({ grpcAddress: a.grpcAddress, logger: createGatewayLogger(a.logLevel ?? 'info') });
      return { httpPort: await gateway.listen(0, '127.0.0.1') };
    },
    cpu: async () => cpuMs(),
    profileStart: async () => profiler.start(),
    loopDelayStart: async () => loopDelay.start(),
    loopDelayStop: async () => loopDelay.stop(),
    profileStop: async (a: { file: string }) => profiler.stop(a.file),
    stop: async () => stop(),
  },
  stop,
);

async function stop(): Promise<void> {
  const g = gateway;
  gateway = null;
  await g?.close();
}
