import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { HealthImplementation, protoPath as HEALTH_PROTO_PATH } from 'grpc-health-check';
import { ReflectionService } from '@grpc/reflection';
import type { Logger } from 'pino';
import { Relay } from './relay';
import { reflectionPackage } from './reflection-schema';

export const GRPC_CHANNEL_OPTIONS = {
  // Signed REST bodies (up to 64 KiB) travel in binary metadata.
  'grpc.max_metadata_size': 256 * 1024,
  'grpc.max_receive_message_length': 4 * 1024 * 1024,
} as const;

export const PROTO_ROOT = path.resolve(__dirname, '../../proto');
const PROTO_FILES = ['common', 'networks', 'merchants', 'invoices', 'withdrawals', 'events', 'operator', 'devnet', 'relay', 'dashboard'].map((f) => `chainpay/v1/${f}.proto`);
/** grpc-health-check ships the standard health.proto; reflection lists it so generic clients (buf curl, grpcurl) find it. */
const HEALTH_PROTO = { root: path.resolve(path.dirname(HEALTH_PROTO_PATH), '../..'), file: 'health/v1/health.proto' } as const;

export interface GrpcServer {
  readonly server: grpc.Server;
  readonly health: HealthImplementation;
  readonly port: number;
  /** Stop accepting calls; in-flight calls finish (bounded by graceMs, then forced). */
  shutdown(graceMs: number): Promise<void>;
}

export interface GrpcService {
  readonly definition: grpc.ServiceDefinition;
  readonly implementation: grpc.UntypedServiceImplementation;
}

/** `chainpay.v1.NetworkService` from a definition's method paths (`/chainpay.v1.NetworkService/ListNetworks`). */
function serviceName(definition: grpc.ServiceDefinition): string {
  const first = Object.values(definition)[0];
  return first ? first.path.split('/')[1]! : '';
}

/** The services, each also callable through RelayService (src/grpc/relay.ts), health and reflection. */
export async function startGrpcServer(options: { host: string; port: number; logger: Logger; services: readonly GrpcService[] }): Promise<GrpcServer> {
  const server = new grpc.Server(GRPC_CHANNEL_OPTIONS);
  const relay = new Relay(options.logger);
  for (const svc of options.services) {
    server.addService(svc.definition, svc.implementation);
    relay.register(svc.definition, svc.implementation);
  }
  relay.addTo(server);
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  const pkg = protoLoader.loadSync([...PROTO_FILES, HEALTH_PROTO.file], { includeDirs: [PROTO_ROOT, HEALTH_PROTO.root], keepCase: true });
  // Reflection names only the services served (a live daemon has no DevnetService), and health.
  const served = [...options.services.map((s) => serviceName(s.definition)), 'chainpay.v1.RelayService', 'grpc.health.v1.Health'];
  new ReflectionService(reflectionPackage(pkg), { services: served }).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${options.host}:${options.port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    server,
    health,
    port,
    shutdown: (graceMs) =>
      new Promise<void>((resolve) => {
        // Relay streams end once their calls in flight are answered; new calls on them are refused.
        relay.drain();
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
