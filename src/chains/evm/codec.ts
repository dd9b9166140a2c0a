import { createHash } from 'node:crypto';
import type { HDKey } from '@scure/bip32';
import { bytesToHex, getAddress } from 'viem';
import { ValidationError } from '../../domain/errors';
import { toBaseUnits } from '../amount';
import { assertDerivationIndex, type AddressCodec, type CodecLinkInput, type HotWalletKey, type KeyMaterial } from '../codec';
import { UnsupportedOperationError } from '../errors';
import { keccakAccountId, privateKeyHex, secp256k1AccountNode, secp256k1PrivateNode } from '../keys/bip32';

/** Deposits: m/44'/60'/0'/0/i (BIP-44, as MetaMask). An account xpub at this path suffices to watch. */
export const EVM_DEPOSIT_ACCOUNT_PATH = "m/44'/60'/0'";
/** Payout hot wallet: its own account, so no deposit index can ever collide with it. */
export const EVM_HOT_WALLET_PATH = "m/44'/60'/1'/0/0";

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** EVM addresses (BEP20, POLYGON, ARBITRUM): EIP-55 display, lowercase keys, EIP-681 links. */
export class EvmCodec implements AddressCodec {
  readonly family = 'evm' as const;
  private external: HDKey | undefined;
  private hot: HotWalletKey | undefined;

  constructor(private readonly keys: KeyMaterial) {}

  deriveDepositAddress(index: number): string {
    assertDerivationIndex(index);
    this.external ??= secp256k1AccountNode({ mnemonic: this.keys.mnemonic, xpub: this.keys.xpub, path: EVM_DEPOSIT_ACCOUNT_PATH }).deriveChild(0);
    return addressOf(this.external.deriveChild(index));
  }

  sharedDepositAddress(): string {
    throw new UnsupportedOperationError('evm', 'sharedDepositAddress');
  }

  /** EIP-55: a mixed-case address must carry a valid checksum; all-lower/all-upper hex carries none. */
  isValidAddress(address: string): boolean {
    if (typeof address !== 'string' || !HEX_ADDRESS.test(address)) return false;
    const body = address.slice(2);
    if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
    return getAddress(address) === address;
  }

  normalizeAddress(address: string): string {
    if (!this.isValidAddress(address)) throw new ValidationError('invalid_address', `not an EVM address: ${address}`, 'address');
    return address.toLowerCase();
  }

  /** EIP-681 token transfer: ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<base units>. */
  paymentLink(input: CodecLinkInput): string {
    if (input.chainId === undefined) throw new RangeError('an EVM payment link needs the chain id');
    const units = toBaseUnits(input.amount, input.tokenDecimals);
    return `ethereum:${checksum(input.tokenContract)}@${input.chainId}/transfer?address=${checksum(input.address)}&uint256=${units}`;
  }

  hotWallet(): HotWalletKey {
    if (!this.hot) {
      const node = secp256k1PrivateNode(this.keys.mnemonic, EVM_HOT_WALLET_PATH);
      this.hot = { address: addressOf(node), privateKeyHex: privateKeyHex(node) };
    }
    return this.hot;
  }

  sampleAddress(seed: string): string {
    return getAddress(bytesToHex(createHash('sha256').update(seed).digest().subarray(0, 20)));
  }
}

function addressOf(node: HDKey): string {
  return getAddress(bytesToHex(keccakAccountId(node.publicKey!)));
}

function checksum(address: string): string {
  if (!HEX_ADDRESS.test(address)) throw new ValidationError('invalid_address', `not an EVM address: ${address}`, 'address');
  return getAddress(address.toLowerCase());
}
