import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';

/**
 * Key material that is generated under DATA_DIR on first start when not given by the environment.
 * Files are created with mode 0600 and exclusively (a concurrent second daemon reads, never overwrites).
 */
export interface DaemonKeys {
  readonly masterKey: Buffer;
  readonly operatorToken: string;
  readonly mnemonic: string;
  readonly generated: string[];
}

function readOrCreate(file: string, create: () => string, generated: string[]): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const value = create();
  try {
    fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
    generated.push(file);
    return value;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw e;
  }
}

export function loadDaemonKeys(dataDir: string, env: { MASTER_KEY?: string; OPERATOR_TOKEN?: string; HD_MNEMONIC?: string }): DaemonKeys {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const generated: string[] = [];
  const masterHex = env.MASTER_KEY ?? readOrCreate(path.join(dataDir, 'master.key'), () => randomBytes(32).toString('hex'), generated);
  if (!/^[0-9a-fA-F]{64}$/.test(masterHex)) throw new Error('master key file is not 64 hex characters');
  const operatorToken = env.OPERATOR_TOKEN ?? readOrCreate(path.join(dataDir, 'operator-token'), () => `op_${randomBytes(24).toString('hex')}`, generated);
  const mnemonic = env.HD_MNEMONIC ?? readOrCreate(path.join(dataDir, 'hd-seed.mnemonic'), () => generateMnemonic(wordlist, 256), generated);
  if (!validateMnemonic(mnemonic, wordlist)) throw new Error('HD mnemonic is not a valid BIP-39 English mnemonic');
  return { masterKey: Buffer.from(masterHex, 'hex'), operatorToken, mnemonic, generated };
}
