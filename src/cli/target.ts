import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CliEnv } from './io';

/** Where the daemon listens, the operator token to present and who is acting. */
export interface DaemonTarget {
  readonly address: string;
  readonly token?: string;
  /** Where the token was read (`CHAINPAY_OPERATOR_TOKEN`, `OPERATOR_TOKEN` or the file), or where it was looked for. */
  readonly tokenLookup?: TokenLookup;
  /** Sent as `x-operator-name`: the audit log says who acted when several people share the token. */
  readonly operatorName?: string;
}

/** `CHAINPAY_GRPC_ADDR`, else 127.0.0.1 on `GRPC_PORT` (50051), as the daemon binds by default. */
export function grpcAddress(env: CliEnv): string {
  const explicit = env.CHAINPAY_GRPC_ADDR?.trim();
  if (explicit) return explicit;
  return `127.0.0.1:${env.GRPC_PORT?.trim() || '50051'}`;
}

/** The variables read for the token, in order, before the file. */
export const TOKEN_VARIABLES = ['CHAINPAY_OPERATOR_TOKEN', 'OPERATOR_TOKEN'] as const;

/** The operator token and where it came from; `file`: the token file looked at (absolute). */
export interface TokenLookup {
  readonly token?: string;
  /** A variable name, or `file`; absent when no token was found. */
  readonly source?: (typeof TOKEN_VARIABLES)[number] | 'file';
  readonly file: string;
}

/**
 * The operator token: `CHAINPAY_OPERATOR_TOKEN`, then `OPERATOR_TOKEN` (what the daemon itself reads),
 * then the file the daemon writes on first start, `${DATA_DIR ?? '.chainpay'}/operator-token`.
 * Missing everywhere is not an error here: public calls (networks) need no token, and the daemon
 * answers `unauthenticated` for the rest (the CLI then says where it looked: tokenHelp).
 */
export function findOperatorToken(env: CliEnv, cwd: string = process.cwd()): TokenLookup {
  const file = path.resolve(cwd, env.DATA_DIR || '.chainpay', 'operator-token');
  for (const name of TOKEN_VARIABLES) {
    const v = env[name];
    if (v?.trim()) return { token: v.trim(), source: name, file };
  }
  try {
    const token = fs.readFileSync(file, 'utf8').trim();
    return token ? { token, source: 'file', file } : { file };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { file };
    throw e;
  }
}

export function operatorToken(env: CliEnv, cwd: string = process.cwd()): string | undefined {
  return findOperatorToken(env, cwd).token;
}

/**
 * What to tell an operator whose call the daemon refused for want of a (right) token: where the
 * CLI looked, and which variables fix it.
 */
export function tokenHelp(lookup: TokenLookup): string {
  const fix = `set CHAINPAY_OPERATOR_TOKEN to the daemon's operator token, or DATA_DIR to the daemon's data directory (the daemon writes operator-token there on first start)`;
  if (lookup.token === undefined) {
    return `no operator token: ${TOKEN_VARIABLES.join(' and ')} are not set and ${lookup.file} does not exist; ${fix}`;
  }
  const from = lookup.source === 'file' ? lookup.file : lookup.source;
  return `the daemon refused the operator token from ${from}; ${fix}`;
}

/** A metadata value must be printable ASCII; the daemon keeps `[\w.@ -]` of it anyway. */
function printable(name: string | undefined): string | undefined {
  const clean = name
    ?.replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, 100);
  return clean || undefined;
}

/** Who is acting: `CHAINPAY_OPERATOR_NAME`, else the OS user name (then `USER`/`LOGNAME`). */
export function operatorName(env: CliEnv, osUser: () => string = () => os.userInfo().username): string | undefined {
  const explicit = printable(env.CHAINPAY_OPERATOR_NAME);
  if (explicit) return explicit;
  try {
    const user = printable(osUser());
    if (user) return user;
  } catch {
    // No passwd entry (e.g. an arbitrary uid in a container): fall back to the environment.
  }
  return printable(env.USER) ?? printable(env.LOGNAME);
}

export function daemonTarget(env: CliEnv): DaemonTarget {
  const lookup = findOperatorToken(env);
  return { address: grpcAddress(env), token: lookup.token, tokenLookup: lookup, operatorName: operatorName(env) };
}
