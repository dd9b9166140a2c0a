import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { RelayCalls } from '../src/grpc/generated/chainpay/v1/relay';

/**
 * RelayCalls (a batch of calls) on the wire, by the generated encoder, into one writer kept for every call. The
 * generated serializer starts each call with a fresh 128-byte writer, grows it by doubling (a
 * signed GET's call is ~300 bytes: three more buffers), then copies the result twice; every one of
 * those buffers lives outside the JS heap, and with --single-threaded-gc freeing them is done in
 * the scavenge's pause (`scavenge.sweep_array_buffers` was 2-8 ms of each 5-14 ms scavenge of the
 * gateway in bench scenario 2, --trace-gc-nvp). Here the writer has grown once, and each call
 * costs one exact-size copy (`finish()`), handed to grpc-js as it is.
 *
 * Invariant: the writer is empty between calls. `finish()` empties it; an encode that throws
 * half-way (a malformed message: never built by the relay client) would leave a partial message
 * and open forks in it, so the writer is replaced then.
 */
let writer = new BinaryWriter();

export function serializeRelayCalls(batch: RelayCalls): Buffer {
  try {
    const bytes = RelayCalls.encode(batch, writer).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (err) {
    writer = new BinaryWriter();
    throw err;
  }
}
