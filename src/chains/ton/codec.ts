import { createHash } from 'node:crypto';
import { Address } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { ValidationError } from '../../domain/errors';
import { toBaseUnits } from '../amount';
import type { AddressCodec, CodecLinkInput, HotWalletKey, KeyMaterial } from '../codec';
import { KeyMaterialError, UnsupportedOperationError } from '../errors';
import { mnemonicToSeed } from '../keys/bip39';
import { deriveEd25519 } from '../keys/slip10';

/**
 * TON keys come from the same BIP-39 mnemonic as every other family (a native 24-word TON
 * mnemonic is a different scheme): SLIP-0010 ed25519 at these paths gives the 32-byte seed of
 * @ton/crypto keyPairFromSeed, whose public key makes a wallet v4r2 (workchain 0).
 */
export const TON_SHARED_WALLET_PATH = "m/44'/607'/0'";
export const TON_HOT_WALLET_PATH = "m/44'/607'/1'";

/** TON (master_memo): one shared wallet, a memo per invoice. */
export class TonCodec implements AddressCodec {
  readonly family = 'ton' as const;
  private shared: string | undefined;
  private hot: HotWalletKey | undefined;
  private service: HotWalletKey | undefined;

  constructor(private readonly keys: KeyMaterial) {}

  deriveDepositAddress(_index: number): string {
    throw new UnsupportedOperationError('ton', 'deriveDepositAddress');
  }

  async crossCheckDepositAddresses(_from: number, _count: number): Promise<string[]> {
    throw new UnsupportedOperationError('ton', 'crossCheckDepositAddresses');
  }

  /** User-friendly, bounceable, url-safe mainnet form (EQ…). */
  sharedDepositAddress(): string {
    this.shared ??= walletAt(this.mnemonic(), TON_SHARED_WALLET_PATH).address;
    return this.shared;
  }

  /** Raw (0:<hex>) and user-friendly (checksummed base64/base64url) forms. */
  isValidAddress(address: string): boolean {
    if (typeof address !== 'string' || !(Address.isFriendly(address) || Address.isRaw(address))) return false;
    try {
      Address.parse(address);
      return true;
    } catch {
      return false;
    }
  }

  /** Raw form: the friendly forms (bounceable or not, testnet flag, url-safe or not) all collapse to it. */
  normalizeAddress(address: string): string {
    if (!this.isValidAddress(address)) throw new ValidationError('invalid_address', `not a TON address: ${address}`, 'address');
    return Address.parse(address).toRawString();
  }

  /** ton://transfer/<address>?jetton=<master>&amount=<base units>[&text=<memo>] (Tonkeeper). */
  paymentLink(input: CodecLinkInput): string {
    const units = toBaseUnits(input.amount, input.tokenDecimals);
    const text = input.memo === null ? '' : `&text=${encodeURIComponent(input.memo)}`;
    return `ton://transfer/${input.address}?jetton=${input.tokenContract}&amount=${units}${text}`;
  }

  /**
   * The shared deposit wallet's key: it owns our jetton wallet, so it also signs the payouts (a
   * jetton transfer is an order from the owner to its jetton wallet).
   */
  serviceWallet(): HotWalletKey {
    const address = this.sharedDepositAddress();
    this.service ??= { address, privateKeyHex: walletAt(this.mnemonic(), TON_SHARED_WALLET_PATH).privateKeyHex };
    return this.service;
  }

  hotWallet(): HotWalletKey {
    this.hot ??= walletAt(this.mnemonic(), TON_HOT_WALLET_PATH);
    return this.hot;
  }

  sampleAddress(seed: string): string {
    return new Address(0, createHash('sha256').update(seed).digest()).toString();
  }

  private mnemonic(): string {
    if (!this.keys.mnemonic) throw new KeyMaterialError('mnemonic_missing', 'TON wallets need the mnemonic');
    return this.keys.mnemonic;
  }
}

function walletAt(mnemonic: string, path: string): HotWalletKey {
  const seed = deriveEd25519(mnemonicToSeed(mnemonic), path).key;
  const wallet = WalletContractV4.create({ workchain: 0, publicKey: keyPairFromSeed(seed).publicKey });
  return { address: wallet.address.toString({ bounceable: true, urlSafe: true, testOnly: false }), privateKeyHex: seed.toString('hex') };
}
