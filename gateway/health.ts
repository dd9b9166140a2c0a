import type { UnaryMethod } from './daemon-client';

/**
 * `grpc.health.v1.Health/Check`, encoded by hand: the messages are one field each, which spares the
 * gateway a proto loader. HealthCheckRequest { string service = 1; }
 * HealthCheckResponse { ServingStatus status = 1; } with UNKNOWN 0, SERVING 1, NOT_SERVING 2, SERVICE_UNKNOWN 3.
 */
export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

const STATUS_NAMES: readonly ServingStatus[] = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

export interface HealthCheckRequest {
  readonly service: string;
}

export const HealthCheck: UnaryMethod<HealthCheckRequest, ServingStatus> = {
  path: '/grpc.health.v1.Health/Check',
  requestStream: false,
  responseStream: false,
  requestSerialize: ({ service }) => {
    const bytes = Buffer.from(service, 'utf8');
    // proto3 omits a default (empty) string; service names are short, so the length fits one varint byte.
    if (bytes.length === 0) return Buffer.alloc(0);
    if (bytes.length > 127) throw new RangeError('health service name too long');
    return Buffer.concat([Buffer.from([0x0a, bytes.length]), bytes]);
  },
  responseDeserialize: (buf) => STATUS_NAMES[decodeStatus(buf)] ?? 'UNKNOWN',
};

/** Reads field 1 (varint) and skips anything else; absent means UNKNOWN (0). */
function decodeStatus(buf: Buffer): number {
  let at = 0;
  let status = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; at < buf.length && shift < 35; shift += 7) {
      const byte = buf[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new RangeError('bad varint in health response');
  };
  while (at < buf.length) {
    const tag = varint();
    const wire = tag & 7;
    if (wire === 0) {
      const value = varint();
      if (tag >>> 3 === 1) status = value;
    } else if (wire === 2) at += varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new RangeError('bad wire type in health response');
  }
  return status;
}
