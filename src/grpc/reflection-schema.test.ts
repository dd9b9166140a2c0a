import * as protoLoader from '@grpc/proto-loader';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { protoPath } from 'grpc-health-check';
import { mapEntryName, reflectionPackage } from './reflection-schema';

describe('reflection schema: map entry types named as protoc names them', () => {
  it('names the entry type after the field in CamelCase plus Entry', () => {
    expect(mapEntryName('statuses')).toBe('StatusesEntry');
    expect(mapEntryName('user_ids')).toBe('UserIdsEntry');
    expect(mapEntryName('a_b_c2')).toBe('ABC2Entry');
  });

  it('renames grpc.health.v1 HealthListResponse.statuses entry and points the field at it by full name', () => {
    const pkg = protoLoader.loadSync(protoPath, { keepCase: true });
    const decode = (p: protoLoader.PackageDefinition): ReturnType<typeof fromBinary<typeof FileDescriptorProtoSchema>> => {
      const bins = (p['grpc.health.v1.HealthListResponse'] as protoLoader.MessageTypeDefinition<object, object>).fileDescriptorProtos;
      return fromBinary(FileDescriptorProtoSchema, bins[0]!);
    };
    // What protobufjs produces (the reason this module exists); if it ever matches protoc, this says so.
    const before = decode(pkg).messageType.find((m) => m.name === 'HealthListResponse')!;
    expect(before.nestedType.map((n) => n.name)).toEqual(['Statuses']);

    const after = decode(reflectionPackage(pkg)).messageType.find((m) => m.name === 'HealthListResponse')!;
    expect(after.nestedType.map((n) => [n.name, n.options?.mapEntry])).toEqual([['StatusesEntry', true]]);
    expect(after.field[0]!.typeName).toBe('.grpc.health.v1.HealthListResponse.StatusesEntry');
    // The service itself is untouched.
    expect(decode(reflectionPackage(pkg)).service.map((s) => s.name)).toEqual(['Health']);
  });
});
