import * as grpc from '@grpc/grpc-js';
import { DevnetServiceClient } from '../../../src/grpc/generated/chainpay/v1/devnet';
import { InvoiceServiceClient } from '../../../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceClient } from '../../../src/grpc/generated/chainpay/v1/merchants';
import { OperatorServiceClient } from '../../../src/grpc/generated/chainpay/v1/operator';
import { WithdrawalServiceClient } from '../../../src/grpc/generated/chainpay/v1/withdrawals';
import { grpcPortFrom, spawnTs, type Spawned } from '../../support/processes';

/**
 * A daemon as a real process (so SIGKILL is a real crash), with the keys fixed in the environment so
 * that every restart, and a standby, derive the same addresses and read the same operator token.
 */
export const FIXED_KEYS = {
  MASTER_KEY: 'b2'.repeat(32),
  OPERATOR_TOKEN: 'op_reliability_suite_token_0123456789',
  HD_MNEMONIC: 'test test test test test test test test test test test junk',
};

export interface DaemonProcess {
  readonly proc: Spawned;
  readonly address: string;
  readonly merchants: MerchantServiceClient;
  readonly invoices: InvoiceServiceClient;
  readonly withdrawals: WithdrawalServiceClient;
  readonly devnet: DevnetServiceClient;
  readonly operator: OperatorServiceClient;
  /** Operator metadata, acting for `merchantId` when given. */
  md(merchantId?: string): grpc.Metadata;
  /** SIGKILL: no shutdown code runs. */
  kill(): Promise<void>;
  /** SIGTERM and wait for a clean exit (code 0 expected). */
  stop(): Promise<number | null>;
}

export async function startDaemonProcess(env: Record<string, string>, running: Spawned[]): Promise<DaemonProcess> {
  const proc = spawnTs('src/main.ts', { GRPC_PORT: '0', LOG_LEVEL: 'info', ...FIXED_KEYS, ...env });
  running.push(proc);
  return connectDaemon(proc);
}

/** Clients of a daemon process once it listens (a standby listens only after it took over). */
export async function connectDaemon(proc: Spawned): Promise<DaemonProcess> {
  const address = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/, 90_000))}`;
  const creds = grpc.credentials.createInsecure();
  const clients = {
    merchants: new MerchantServiceClient(address, creds),
    invoices: new InvoiceServiceClient(address, creds),
    withdrawals: new WithdrawalServiceClient(address, creds),
    devnet: new DevnetServiceClient(address, creds),
    operator: new OperatorServiceClient(address, creds),
  };
  const close = (): void => {
    for (const c of Object.values(clients)) c.close();
  };
  return {
    proc,
    address,
    ...clients,
    md(merchantId) {
      const m = new grpc.Metadata();
      m.set('authorization', `Bearer ${FIXED_KEYS.OPERATOR_TOKEN}`);
      if (merchantId) m.set('x-merchant-id', merchantId);
      return m;
    },
    async kill() {
      close();
      if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
      await proc.exited();
    },
    async stop() {
      close();
      if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
      return proc.exited();
    },
  };
}

/** A unary call as a promise (the generated clients are callback-style). */
export function call<Res>(invoke: (cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, deadlineMs = 15_000): Promise<Res> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
    invoke((err, res) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(res);
    });
  });
}
