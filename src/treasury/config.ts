import { z } from 'zod';
import { toDecimal } from '../domain/decimal';
import { NETWORK_CODES, type NetworkCode } from '../domain/networks';

/**
 * The treasury's settings (docs/treasury.md, "Variables"). Per network `<CODE>`:
 *   <CODE>_SWEEP          on | off (default on): automatic sweeps; `chainpay treasury sweep` works either way
 *   <CODE>_SWEEP_MIN      USDT: an address holding at least this (all of it final) is swept
 *   <CODE>_HOT_MAX        USDT: above it, sweeps go to <CODE>_COLD_ADDRESS (only the excess)
 *   <CODE>_COLD_ADDRESS   the cold address (both or neither of HOT_MAX and COLD_ADDRESS)
 * and for all: SWEEP_MAX_AGE_HOURS (168): an address holding more than a typical sweep fee for this
 * long is swept below the minimum too; TREASURY_INTERVAL_SECONDS (60): how often the policy runs.
 */
export interface NetworkTreasuryConfig {
  readonly enabled: boolean;
  readonly sweepMin: string;
  /** A typical sweep's fee in USDT (what the aged rule compares against; the defaults' basis). */
  readonly typicalFee: string;
  readonly hotMax: string | null;
  readonly coldAddress: string | null;
}

export interface TreasuryConfig {
  readonly maxAgeHours: number;
  readonly intervalMs: number;
  readonly networks: Readonly<Record<NetworkCode, NetworkTreasuryConfig>>;
}

/**
 * A typical sweep's whole cost in USD (top-up + transfer, mid-2025 prices), and the minimum that
 * keeps it at <= 2% of what moves (min = 50 × fee, rounded up to a round figure):
 * BEP20 ~ 2 × 50k gas at 0.1 gwei, BNB ~$600 -> ~$0.01 -> min 1; POLYGON ~ 2 × 50k gas at 30
 * gwei, POL ~$0.25 -> ~$0.001 -> min 1; ARBITRUM ~ 2 × 60k gas at 0.01 gwei + L1 data, ETH ~$2,500
 * -> ~$0.01 -> min 1; TRC20 6.4 TRX burned (65k energy × 100 sun) + bandwidth (+1.1 TRX activation
 * once), TRX ~$0.27 -> ~$2 -> min 100; SOLANA 5,000 lamports -> ~$0.001 -> min 1; TON: nothing to sweep.
 */
export const SWEEP_DEFAULTS: Readonly<Record<NetworkCode, { sweepMin: string; typicalFee: string }>> = {
  BEP20: { sweepMin: '1', typicalFee: '0.01' },
  POLYGON: { sweepMin: '1', typicalFee: '0.002' },
  ARBITRUM: { sweepMin: '1', typicalFee: '0.02' },
  TRC20: { sweepMin: '100', typicalFee: '2' },
  SOLANA: { sweepMin: '1', typicalFee: '0.002' },
  TON: { sweepMin: '1', typicalFee: '0' },
};

export class TreasuryConfigError extends Error {
  override readonly name = 'TreasuryConfigError';
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
  }
}

const positiveAmount = z.string().refine((s) => /^\d+(\.\d+)?$/.test(s) && toDecimal(s).gt(0), 'must be a positive decimal');
const onOff = z.enum(['on', 'off']);
const positiveInt = z
  .string()
  .regex(/^\d+$/, 'must be a whole number')
  .transform(Number)
  .refine((n) => n > 0, 'must be positive');

function read<T>(env: NodeJS.ProcessEnv, variable: string, schema: z.ZodType<T>): T | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === '') return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new TreasuryConfigError(variable, parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}

export function treasuryConfig(env: NodeJS.ProcessEnv): TreasuryConfig {
  const networks = {} as Record<NetworkCode, NetworkTreasuryConfig>;
  for (const code of NETWORK_CODES) {
    const hotMax = read(env, `${code}_HOT_MAX`, positiveAmount) ?? null;
    const coldAddress = read(env, `${code}_COLD_ADDRESS`, z.string().min(1)) ?? null;
    if ((hotMax === null) !== (coldAddress === null))
      throw new TreasuryConfigError(hotMax === null ? `${code}_HOT_MAX` : `${code}_COLD_ADDRESS`, `set together with ${hotMax === null ? `${code}_COLD_ADDRESS` : `${code}_HOT_MAX`}`);
    networks[code] = {
      enabled: (read(env, `${code}_SWEEP`, onOff) ?? 'on') === 'on',
      sweepMin: read(env, `${code}_SWEEP_MIN`, positiveAmount) ?? SWEEP_DEFAULTS[code].sweepMin,
      typicalFee: SWEEP_DEFAULTS[code].typicalFee,
      hotMax,
      coldAddress,
    };
  }
  return {
    maxAgeHours: read(env, 'SWEEP_MAX_AGE_HOURS', positiveInt) ?? 168,
    intervalMs: (read(env, 'TREASURY_INTERVAL_SECONDS', positiveInt) ?? 60) * 1000,
    networks,
  };
}
