import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import path from 'node:path';
import fs from 'node:fs';
import { fromBinary, toBinary, create, toJson } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
const REFLECTION_PROTO = path.join(path.dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto/grpc/reflection/v1/reflection.proto');
const pkg: any = grpc.loadPackageDefinition(protoLoader.loadSync(REFLECTION_PROTO, { keepCase: true }));
const client = new pkg.grpc.reflection.v1.ServerReflection('127.0.0.1:50999', grpc.credentials.createInsecure());
const call = client.ServerReflectionInfo();
call.on('data', (res: any) => {
  const files = (res.file_descriptor_response?.file_descriptor_proto ?? []).map((b: Buffer) => fromBinary(FileDescriptorProtoSchema, b));
  for (const f of files) console.log(f.name, f.dependency, f.messageType.length);
  fs.writeFileSync('/tmp/set.binpb', toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files })));
  fs.writeFileSync('/tmp/set.json', JSON.stringify(toJson(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: files })), null, 1));
  call.end(); client.close();
});
call.write({ file_containing_symbol: process.argv[2] });
