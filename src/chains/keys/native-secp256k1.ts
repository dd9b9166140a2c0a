/**
 * libsecp256k1 and a native keccak-256: the prebuilt N-API add-ons of the `secp256k1` and `keccak`
 * packages (prebuilds for linux-x64, darwin and win32 ship inside them: nothing is compiled or
 * downloaded at install).
 *
 * Why: deriving a deposit address (BIP-32 CKDpub, then keccak for the account id and again for the
 * EIP-55 checksum) cost ~135 µs in JavaScript on the 2-core bench machine, one address per new
 * invoice; with these ~52 µs (libsecp256k1's tweak-add ~40 µs with the HMAC, keccak ~3 µs against
 * ~12 µs). Only the derivation thread uses them (chains/derivation/worker-main.ts); the daemon
 * thread keeps the JavaScript implementation and derives the last address of every chunk the
 * thread returns again (refillPool): two independent implementations must agree before an address
 * is handed to a buyer.
 */
export interface NativeSecp256k1 {
  /**
   * parent + tweak·G as a 65-byte uncompressed key (0x04 || x || y). Throws when libsecp256k1
   * refuses: tweak >= n, or the sum is the point at infinity.
   */
  tweakAdd(parentCompressed: Uint8Array, tweak: Uint8Array): Uint8Array;
  keccak256(data: Uint8Array): Uint8Array;
}

interface Secp256k1Bindings {
  publicKeyTweakAdd(publicKey: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
}
interface KeccakHash {
  update(data: Uint8Array): KeccakHash;
  digest(): Buffer;
}
type KeccakBindings = (algorithm: 'keccak256') => KeccakHash;

/**
 * The add-ons, or null where either cannot load (no prebuild for this platform, a runtime without
 * N-API): the caller then derives in JavaScript, as before. `secp256k1/bindings` and
 * `keccak/bindings` throw rather than fall back to the packages' own JavaScript (elliptic: ~1 ms a
 * key), which would be slower than ours.
 */
export function loadNativeSecp256k1(load: (id: string) => unknown = require): NativeSecp256k1 | null {
  let curve: Secp256k1Bindings;
  let keccak: KeccakBindings;
  try {
    curve = load('secp256k1/bindings') as Secp256k1Bindings;
    keccak = load('keccak/bindings') as KeccakBindings;
  } catch {
    return null;
  }
  return {
    tweakAdd: (parentCompressed, tweak) => curve.publicKeyTweakAdd(parentCompressed, tweak, false),
    // The add-on takes a Buffer only: a view of the same bytes, no copy.
    keccak256: (data) => keccak('keccak256').update(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest(),
  };
}
