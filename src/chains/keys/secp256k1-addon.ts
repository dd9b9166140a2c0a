/**
 * The `secp256k1` and `keccak` packages: the SECOND implementation of deposit-address derivation
 * (the first is @scure/bip32 with @noble/curves and @noble/hashes: bip32.ts). Every address is
 * derived by both and enters the pool only where they agree (store/repos/address-pool.ts).
 *
 * Where their N-API add-ons load (prebuilds for linux-x64, darwin and win32 ship inside the
 * packages: nothing is compiled or downloaded at install), the curve work is libsecp256k1 and the
 * hash the XKCP keccak, ~6x cheaper than @noble/curves: the check then costs a fraction of the
 * first derivation. Where they do not load, the same packages' own JavaScript runs instead
 * (`secp256k1/elliptic`: elliptic's curve arithmetic; `keccak/js`), still independent of noble,
 * only slower. The engine is reported (DerivationThread#engine, docs/performance.md).
 */
export type AddonEngine = 'libsecp256k1' | 'javascript';

export interface Secp256k1Addon {
  /** What the curve work runs on: libsecp256k1, or the package's JavaScript fallback (elliptic). */
  readonly engine: AddonEngine;
  /**
   * parent + tweak·G, compressed (33 bytes) or uncompressed (65 bytes: 0x04 || x || y). Throws when
   * the parent is not a valid point, the tweak is >= n, or the sum is the point at infinity.
   */
  publicKeyTweakAdd(publicKey: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
  keccak256(data: Uint8Array): Uint8Array;
}

interface Secp256k1Api {
  publicKeyTweakAdd(publicKey: Uint8Array, tweak: Uint8Array, compressed: boolean): Uint8Array;
}
interface KeccakHash {
  update(data: Uint8Array): KeccakHash;
  digest(): Buffer;
}
type KeccakApi = (algorithm: 'keccak256') => KeccakHash;

/** `require` of the packages' entry points; a test passes one that fails to see the fallback. */
export type AddonLoader = (id: string) => unknown;

function loadFirst<T>(load: AddonLoader, native: string, fallback: string): { api: T; native: boolean } {
  try {
    return { api: load(native) as T, native: true };
  } catch {
    // No prebuild for this platform, or a runtime without N-API: the package's own JavaScript.
    return { api: load(fallback) as T, native: false };
  }
}

/**
 * The add-ons where they load, each package on its own (the curve may be native while keccak is
 * not). `secp256k1/bindings` and `keccak/bindings` throw rather than fall back silently, so the
 * engine reported is the one running.
 */
export function loadSecp256k1Addon(load: AddonLoader = require): Secp256k1Addon {
  const curve = loadFirst<Secp256k1Api>(load, 'secp256k1/bindings', 'secp256k1/elliptic');
  const keccak = loadFirst<KeccakApi>(load, 'keccak/bindings', 'keccak/js');
  return {
    engine: curve.native ? 'libsecp256k1' : 'javascript',
    publicKeyTweakAdd: (publicKey, tweak, compressed) => curve.api.publicKeyTweakAdd(publicKey, tweak, compressed),
    // The package takes a Buffer only: a view of the same bytes, no copy.
    keccak256: (data) =>
      keccak
        .api('keccak256')
        .update(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength))
        .digest(),
  };
}

let loaded: Secp256k1Addon | undefined;

/** The add-on of this thread, loaded once. */
export function secp256k1Addon(): Secp256k1Addon {
  loaded ??= loadSecp256k1Addon();
  return loaded;
}
