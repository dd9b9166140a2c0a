import { createHash, pbkdf2Sync } from 'node:crypto';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { KeyMaterialError } from '../errors';

const WORD_INDEX = new Map(english.map((word, index) => [word, index]));

/**
 * BIP-39 English mnemonic -> 64-byte seed. The checksum is verified first: a mistyped word must
 * stop start-up, not silently derive a different set of deposit addresses.
 */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Buffer {
  const words = mnemonic.normalize('NFKD').trim().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) {
    throw new KeyMaterialError('mnemonic_invalid', `a mnemonic has 12, 15, 18, 21 or 24 words, not ${words.length}`);
  }
  let bits = '';
  for (const word of words) {
    const index = WORD_INDEX.get(word);
    if (index === undefined) throw new KeyMaterialError('mnemonic_invalid', 'the mnemonic has a word outside the BIP-39 English list');
    bits += index.toString(2).padStart(11, '0');
  }
  const checksumBits = bits.length / 33;
  const entropyBits = bits.slice(0, bits.length - checksumBits);
  const entropy = Buffer.from(entropyBits.match(/.{8}/g)!.map((byte) => parseInt(byte, 2)));
  const hash = createHash('sha256').update(entropy).digest();
  const expected = [...hash].map((b) => b.toString(2).padStart(8, '0')).join('').slice(0, checksumBits);
  if (expected !== bits.slice(bits.length - checksumBits)) {
    throw new KeyMaterialError('mnemonic_invalid', 'the mnemonic checksum does not match (mistyped word?)');
  }
  return pbkdf2Sync(words.join(' '), `mnemonic${passphrase.normalize('NFKD')}`, 2048, 64, 'sha512');
}
