import { createHash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { assertDerivationIndex, assertDerivationRange, type AddressCodec, type CodecLinkInput, type HotWalletKey, type KeyMaterial } from '../../../src/chains/codec';
import { KeyMaterialError, UnsupportedOperationError } from '../../../src/chains/errors';
import { ValidationError } from '../../../src/domain/errors';

/** A toy address: `TOY` and 40 hex digits, shown in upper case, matched in any letter case. */
const SHAPE = /^toy[0-9a-f]{40}$/i;

const display = (hex: string): string => `TOY${hex.slice(0, 40).toUpperCase()}`;

/**
 * The toy family's addresses (test only): deposit address i is the first 20 bytes of
 * SHA-256("toy-deposit:<mnemonic>:<i>"). Derived by node:crypto, cross-checked by @noble/hashes
 * (two implementations, as refillPool wants). Its own format, so nothing of another family's
 * codec can match it: the watched set, the whitelist and the payment link go through this codec.
 */
export class ToyCodec implements AddressCodec {
  readonly family = 'toy';

  constructor(private readonly keys: KeyMaterial) {}

  deriveDepositAddress(index: number): string {
    assertDerivationIndex(index);
    return display(createHash('sha256').update(`toy-deposit:${this.mnemonic()}:${index}`).digest('hex'));
  }

  async crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    assertDerivationRange(from, count);
    const mnemonic = this.mnemonic();
    return Array.from({ length: count }, (_, k) => display(bytesToHex(sha256(utf8ToBytes(`toy-deposit:${mnemonic}:${from + k}`)))));
  }

  sharedDepositAddress(): string {
    throw new UnsupportedOperationError('toy', 'sharedDepositAddress');
  }

  isValidAddress(address: string): boolean {
    return SHAPE.test(address);
  }

  /** Lower case: `TOYAB…` and `toyab…` are one address. */
  normalizeAddress(address: string): string {
    if (!SHAPE.test(address)) throw new ValidationError('invalid_address', `not a toy address: ${address}`, 'address');
    return address.toLowerCase();
  }

  paymentLink(input: CodecLinkInput): string {
    return `toy:${display(this.normalizeAddress(input.address).slice(3))}?token=${input.tokenContract}&amount=${input.amount}`;
  }

  hotWallet(): HotWalletKey {
    const privateKeyHex = createHash('sha256').update(`toy-hot:${this.mnemonic()}`).digest('hex');
    return { address: display(createHash('sha256').update(privateKeyHex).digest('hex')), privateKeyHex };
  }

  sampleAddress(seed: string): string {
    return display(createHash('sha256').update(`toy-sample:${seed}`).digest('hex'));
  }

  private mnemonic(): string {
    if (!this.keys.mnemonic) throw new KeyMaterialError('mnemonic_missing', 'toy deposit addresses need the mnemonic');
    return this.keys.mnemonic;
  }
}
