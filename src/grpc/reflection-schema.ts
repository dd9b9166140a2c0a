import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type DescriptorProto, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import type { PackageDefinition } from '@grpc/proto-loader';

/**
 * The package definition that server reflection serves, with each file descriptor as protoc would
 * write it. protobufjs (under @grpc/proto-loader) names a map field's entry type after the field
 * (`Statuses`) where protoc names it `StatusesEntry`; Go clients (buf curl, grpcurl) refuse such a
 * file ("incorrect implicit map entry name") and then cannot find any service in it. grpc.health.v1
 * has a map (HealthListResponse.statuses), so without this its Check could not be called by name.
 */
export function reflectionPackage(pkg: PackageDefinition): PackageDefinition {
  const fixed = new Map<string, Buffer>();
  const fix = (bin: Buffer): Buffer => {
    const key = bin.toString('base64');
    let out = fixed.get(key);
    if (!out) {
      out = Buffer.from(toBinary(FileDescriptorProtoSchema, withProtocMapEntryNames(fromBinary(FileDescriptorProtoSchema, bin))));
      fixed.set(key, out);
    }
    return out;
  };
  const result: PackageDefinition = {};
  for (const [name, def] of Object.entries(pkg)) {
    const protos = (def as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    result[name] = Array.isArray(protos) ? ({ ...def, fileDescriptorProtos: (protos as Buffer[]).map(fix) } as PackageDefinition[string]) : def;
  }
  return result;
}

/** protoc's entry type name for a map field: the field name in CamelCase plus `Entry` (`user_ids` -> `UserIdsEntry`). */
export function mapEntryName(fieldName: string): string {
  const camel = fieldName.replace(/_+([a-zA-Z0-9])/g, (_m, c: string) => c.toUpperCase());
  return `${camel.charAt(0).toUpperCase()}${camel.slice(1)}Entry`;
}

/** Renames every map entry type (and the field pointing at it, by its full name) to protoc's name. */
export function withProtocMapEntryNames(file: FileDescriptorProto): FileDescriptorProto {
  // Scopes are fully qualified with the leading dot: `.grpc.health.v1.HealthListResponse`.
  const visit = (msg: DescriptorProto, scope: string): void => {
    const fullName = `${scope}.${msg.name}`;
    for (const field of msg.field) {
      const entry = msg.nestedType.find((n) => n.options?.mapEntry && (field.typeName === n.name || field.typeName === `${fullName}.${n.name}`));
      if (!entry) continue;
      entry.name = mapEntryName(field.name);
      field.typeName = `${fullName}.${entry.name}`;
    }
    for (const nested of msg.nestedType) visit(nested, fullName);
  };
  const pkgScope = file.package ? `.${file.package}` : '';
  for (const msg of file.messageType) visit(msg, pkgScope);
  return file;
}
