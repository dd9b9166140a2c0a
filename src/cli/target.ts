import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CliEnv } from './io';

/** Where the daemon listens, the operator token to present and who is acting. */
export interface DaemonTarget {
  readonly address: string;
  readonly token?: string;
  /** Sent as `x-operator-name`: the audit log says who acted when several people share the token. */
  readonly operatorName?: string;
}

/** `CHAINPAY_GRPC_ADDR`, else 127.0.0.1 on `GRPC_PORT` (50051), as the daemon binds by default. */
export function grpcAddress(env: CliEnv): string {
  const explicit = env.CHAINPAY_GRPC_ADDR?.trim();
  if (explicit) return explicit;
  return `127.0.0.1:${env.GRPC_PORT?.trim() || '50051'}`;
}

/**
 * The operator token: `CHAINPAY_OPERATOR_TOKEN`, then `OPERATOR_TOKEN` (what the daemon itself reads),
 * then the file the daemon writes on first start, `${DATA_DIR ?? '.chainpay'}/operator-token`.
 * Missing everywhere is not an error here: public calls (networks) need no token, and the daemon
 * answers `unauthenticated` for the rest.
 */
export function operatorToken(env: CliEnv, cwd: string = process.cwd()): string | undefined {
  for (const v of [env.CHAINPAY_OPERATOR_TOKEN, env.OPERATOR_TOKEN]) {
    if (v && v.trim()) return v.trim();
  }
  const file = path.resolve(cwd, env.DATA_DIR || '.chainpay', 'operator-token');
  try {
    const token = fs.readFileSync(file, 'utf8').trim();
    return token || undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A metadata value must be printable ASCII; the daemon keeps `[\w.@ -]` of it anyway. */
function printable(name: string | undefined): string | undefined {
  const clean = name?.replace(/[^\x20-\x7e]/g, '').trim().slice(0, 100);
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
  return { address: grpcAddress(env), token: operatorToken(env), operatorName: operatorName(env) };
}
