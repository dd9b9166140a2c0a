import { createHash } from 'node:crypto';
import type { HDKey } from '@scure/bip32';
import { bytesToHex, getAddress } from 'viem';
import { ValidationError } from '../../domain/errors';
import { toBaseUnits } from '../amount';
import { assertDerivationIndex, assertDerivationRange, type AddressCodec, type CodecLinkInput, type HotWalletKey, type KeyMaterial } from '../codec';
import { UnsupportedOperationError } from '../errors';
import { keccakAccountId, keccakAccountIdOfUncompressed, privateKeyHex, secp256k1DepositChains, secp256k1PrivateNode, type Secp256k1DepositChains } from '../keys/bip32';
import { secp256k1Addon, type Secp256k1Addon } from '../keys/secp256k1-addon';
import { eip55Address } from './checksum';

/** Deposits: m/44'/60'/0'/0/i (BIP-44, as MetaMask). An account xpub at this path suffices to watch. */
export const EVM_DEPOSIT_ACCOUNT_PATH = "m/44'/60'/0'";
/** Payout hot wallet: its own account, so no deposit index can ever collide with it. */
export const EVM_HOT_WALLET_PATH = "m/44'/60'/1'/0/0";

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** EVM addresses (BEP20, POLYGON, ARBITRUM): EIP-55 display, lowercase keys, EIP-681 links. */
export class EvmCodec implements AddressCodec {
  readonly family = 'evm' as const;
  /** <account>/0 of both implementations; built on first use (a bad mnemonic/xpub throws there). */
  private chains: Secp256k1DepositChains | undefined;
  private hot: HotWalletKey | undefined;

  /** `addon`: the second implementation (default: the secp256k1/keccak add-on this thread loads); tests inject a wrong one. */
  constructor(
    private readonly keys: KeyMaterial,
    private readonly addon: Secp256k1Addon = secp256k1Addon(),
  ) {}

  deriveDepositAddress(index: number): string {
    assertDerivationIndex(index);
    return this.deriveDepositAddresses(index, 1)[0]!;
  }

  /** <account>/0/from .. from+count-1 by @scure/bip32, @noble/hashes' keccak and viem's EIP-55 (getAddress). */
  deriveDepositAddresses(from: number, count: number): string[] {
    assertDerivationRange(from, count);
    return this.depositChains()
      .primary.childKeys(from, count)
      .map((key) => getAddress(bytesToHex(keccakAccountIdOfUncompressed(key))));
  }

  /** The same by the secp256k1 add-on's CKDpub, the keccak add-on and our EIP-55 over that keccak (checksum.ts): no step shared. */
  async crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    assertDerivationRange(from, count);
    const keccak = this.addon.keccak256;
    return this.depositChains()
      .check.childKeys(from, count)
      .map((key) => eip55Address(keccakAccountIdOfUncompressed(key, keccak), keccak));
  }

  private depositChains(): Secp256k1DepositChains {
    this.chains ??= secp256k1DepositChains({ mnemonic: this.keys.mnemonic, xpub: this.keys.xpub, path: EVM_DEPOSIT_ACCOUNT_PATH }, this.addon);
    return this.chains;
  }

  sharedDepositAddress(): string {
    throw new UnsupportedOperationError('evm', 'sharedDepositAddress');
  }

  /** EIP-55: a mixed-case address must carry a valid checksum; all-lower/all-upper hex carries none. */
  isValidAddress(address: string): boolean {
    if (typeof address !== 'string' || !HEX_ADDRESS.test(address)) return false;
    return carriesNoChecksum(address) || getAddress(address) === address;
  }

  normalizeAddress(address: string): string {
    if (!this.isValidAddress(address)) throw new ValidationError('invalid_address', `not an EVM address: ${address}`, 'address');
    return address.toLowerCase();
  }

  /** Our own derivations come out of getAddress (EIP-55): only the shape is checked, not the checksum again (a keccak). */
  normalizeDerivedAddress(address: string): string {
    if (!HEX_ADDRESS.test(address)) throw new ValidationError('invalid_address', `not an EVM address: ${address}`, 'address');
    return address.toLowerCase();
  }

  /** EIP-681 token transfer: ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<base units>. */
  paymentLink(input: CodecLinkInput): string {
    if (input.chainId === undefined) throw new RangeError('an EVM payment link needs the chain id');
    const units = toBaseUnits(input.amount, input.tokenDecimals);
    return `ethereum:${this.tokenChecksum(input.tokenContract)}@${input.chainId}/transfer?address=${input.derived ? asDerived(input.address) : checksum(input.address)}&uint256=${units}`;
  }

  /** The network's token contract, checksummed once (it is the same in every link). */
  private readonly tokenChecksums = new Map<string, string>();
  private tokenChecksum(contract: string): string {
    let found = this.tokenChecksums.get(contract);
    if (found === undefined) {
      found = checksum(contract);
      if (this.tokenChecksums.size < 16) this.tokenChecksums.set(contract, found);
    }
    return found;
  }

  hotWallet(): HotWalletKey {
    if (!this.hot) {
      const node = secp256k1PrivateNode(this.keys.mnemonic, EVM_HOT_WALLET_PATH);
      this.hot = { address: addressOf(node), privateKeyHex: privateKeyHex(node) };
    }
    return this.hot;
  }

  /** Whether deposit keys can sign (a mnemonic; an xpub only watches: nothing is swept automatically). */
  canSignDeposits(): boolean {
    return Boolean(this.keys.mnemonic);
  }

  /** The signing key of deposit address `index` (m/44'/60'/0'/0/index): a sweep moves its tokens. Needs the mnemonic. */
  depositKey(index: number): HotWalletKey {
    assertDerivationIndex(index);
    const node = secp256k1PrivateNode(this.keys.mnemonic, `${EVM_DEPOSIT_ACCOUNT_PATH}/0/${index}`);
    return { address: addressOf(node), privateKeyHex: privateKeyHex(node) };
  }

  sampleAddress(seed: string): string {
    return getAddress(bytesToHex(createHash('sha256').update(seed).digest().subarray(0, 20)));
  }
}

function addressOf(node: HDKey): string {
  return getAddress(bytesToHex(keccakAccountId(node.publicKey!)));
}

/**
 * An address as this codec derived it: getAddress's EIP-55 form, used as it is. One without
 * checksum information (all lower or upper case hex, as a pool row written by other code could
 * hold) is checksummed, so a link always carries the EIP-55 form.
 */
function asDerived(address: string): string {
  if (!HEX_ADDRESS.test(address)) throw new ValidationError('invalid_address', `not an EVM address: ${address}`, 'address');
  return carriesNoChecksum(address) ? getAddress(address.toLowerCase()) : address;
}

/** EIP-55: hex in one case only (all lower or all upper) carries no checksum. */
function carriesNoChecksum(address: string): boolean {
  const body = address.slice(2);
  return body === body.toLowerCase() || body === body.toUpperCase();
}

function checksum(address: string): string {
  if (!HEX_ADDRESS.test(address)) throw new ValidationError('invalid_address', `not an EVM address: ${address}`, 'address');
  return getAddress(address.toLowerCase());
}
