import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const REFLECTION_PROTO = path.join(path.dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto/grpc/reflection/v1/reflection.proto');

type ReflectionStream = grpc.ClientDuplexStream<{ list_services: string }, { list_services_response?: { service: { name: string }[] } }>;
type ReflectionClient = grpc.Client & { ServerReflectionInfo(): ReflectionStream };

/** One raw ServerReflectionInfo call: list_services. */
export async function listServices(address: string): Promise<string[]> {
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(REFLECTION_PROTO, { keepCase: true })) as unknown as {
    grpc: { reflection: { v1: { ServerReflection: new (addr: string, creds: grpc.ChannelCredentials) => ReflectionClient } } };
  };
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  try {
    return await new Promise<string[]>((resolve, reject) => {
      const call = client.ServerReflectionInfo();
      call.on('data', (res) => {
        resolve((res.list_services_response?.service ?? []).map((s: { name: string }) => s.name));
        call.end();
      });
      call.on('error', reject);
      call.write({ list_services: '' });
    });
  } finally {
    client.close();
  }
}
