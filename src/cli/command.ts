import { UsageError } from './errors';
import type { Rpc } from './client';
import type { CliIO } from './io';
import type { Output } from './output';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly required?: boolean;
  readonly short?: string;
}

/** One `chainpay <group> [<sub>]` command: its options, usage and the one call it makes. */
export interface CommandSpec {
  /** 'merchant create', or a group's own command ('networks'). */
  readonly name: string;
  /** The usage tail after the name: 'UUID --reason R'. */
  readonly usage: string;
  readonly summary: string;
  readonly options?: Readonly<Record<string, OptionSpec>>;
  /** Names of the required positionals, in order. */
  readonly positionals?: readonly string[];
  /** Exit code, or nothing for 0. */
  run(ctx: CommandContext): Promise<number | void>;
}

export interface CommandContext {
  readonly args: Args;
  readonly out: Output;
  /** Connects on first use; `sign` never touches it. */
  readonly rpc: Rpc;
  readonly io: CliIO;
}

const INTEGER = /^-?\d+$/;

/** Parsed values of one command, with typed, validated accessors that throw UsageError. */
export class Args {
  constructor(
    readonly command: string,
    private readonly values: Readonly<Record<string, string | boolean | undefined>>,
    readonly positionals: readonly string[],
  ) {}

  /** A required string option. */
  str(name: string): string {
    const v = this.values[name];
    if (typeof v !== 'string') throw new UsageError(`--${name} is required`, this.command);
    return v;
  }

  opt(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  pos(index: number): string {
    const v = this.positionals[index];
    if (v === undefined) throw new UsageError('missing argument', this.command);
    return v;
  }

  /** An int64 option as the decimal string ts-proto carries; `min` bounds it. */
  int64(name: string, min = 0): string | undefined {
    const v = this.opt(name);
    if (v === undefined) return undefined;
    if (!INTEGER.test(v) || BigInt(v) < BigInt(min)) throw new UsageError(`--${name} must be an integer >= ${min}`, this.command);
    return BigInt(v).toString();
  }

  /** An int32 option (counts, never money). */
  int32(name: string, min = 0): number | undefined {
    const v = this.int64(name, min);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (n > 2_147_483_647) throw new UsageError(`--${name} is too large`, this.command);
    return n;
  }

  /** A string option restricted to `choices`. */
  choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
    const v = this.opt(name);
    if (v === undefined) return undefined;
    if (!(choices as readonly string[]).includes(v)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}`, this.command);
    return v as T;
  }

  /** `true|false` option. */
  bool(name: string): boolean | undefined {
    const v = this.choice(name, ['true', 'false']);
    return v === undefined ? undefined : v === 'true';
  }

  /** At least one of `names` must be given (update commands). */
  requireAny(names: readonly string[]): void {
    if (!names.some((n) => this.values[n] !== undefined)) {
      throw new UsageError(`give at least one of ${names.map((n) => `--${n}`).join(', ')}`, this.command);
    }
  }
}

/** Options shared by commands that list things. */
export const LIMIT: Readonly<Record<string, OptionSpec>> = { limit: { type: 'string' } };
