import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface CompiledContract {
  readonly abi: readonly unknown[];
  readonly bytecode: `0x${string}`;
}

/**
 * Compiles TestToken.sol with the `solc` npm package (solc-js, bundled compiler: no download).
 * The result is cached in the OS temp dir by source hash: test files running in parallel reuse it.
 */
export function compileTestToken(): CompiledContract {
  const source = readFileSync(path.join(__dirname, 'TestToken.sol'), 'utf8');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { version(): string; compile(input: string): string };
  const key = createHash('sha256').update(source).update(solc.version()).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), 'chainpay-solc-cache');
  const file = path.join(dir, `TestToken-${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as CompiledContract;
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: source } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'paris', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const contract = output.contracts['TestToken.sol']!.TestToken!;
  const compiled: CompiledContract = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(compiled));
  renameSync(`${file}.${process.pid}`, file); // atomic: a parallel reader never sees half a file
  return compiled;
}
