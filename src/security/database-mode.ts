import { Client } from 'pg';
import type { ChainMode } from '../config/chain-mode';
import { ConfigError } from '../config/config';

/** system_settings key of the chain mode a database was created in (DESIGN.md: a database remembers its mode). */
export const CHAIN_MODE_KEY = 'chain_mode';
/** The devnet clock's saved offset: only `chainpay devnet advance-time` ever wrote it. */
const DEVNET_CLOCK_OFFSET_KEY = 'devnet_clock_offset_ms';
/**
 * The networks that could run on a real chain before databases recorded their mode (EVM only).
 * History on any other network (TRC20, TON, SOLANA) was therefore made on devnet.
 */
const LIVE_CAPABLE_BEFORE_RECORD: readonly string[] = ['BEP20', 'POLYGON', 'ARBITRUM'];

export interface StoredChainMode {
  readonly mode: ChainMode;
  readonly recorded_at: string;
  /** Set when the record was written for a database that predates it: how the mode was inferred. */
  readonly inferred?: string;
}

/** What the daemon is about to run: the mode and the variable that decided it (null: the default). */
export interface WantedChainMode {
  readonly mode: ChainMode;
  readonly from: string | null;
}

const runsAs = (wanted: WantedChainMode): string =>
  wanted.mode === 'live' ? `live (${wanted.from} is set)` : wanted.from ? `on devnet (${wanted.from}=devnet)` : 'on devnet (no <CODE>_RPC_URL is set)';

/**
 * The daemon's mode is not its database's. Devnet money in a live database could be paid out on a
 * real chain; real payments in a devnet database would sit beside simulated ones that anyone with
 * the operator token can mint. A ConfigError: the process exits with 78 (EX_CONFIG).
 */
export class DatabaseModeMismatchError extends ConfigError {
  constructor(
    readonly stored: ChainMode,
    readonly wanted: ChainMode,
    variable: string,
    reason: string,
  ) {
    super(variable, reason);
  }

  static of(stored: StoredChainMode, wanted: WantedChainMode): DatabaseModeMismatchError {
    const variable = wanted.from ?? 'CHAIN_MODE';
    const since = `created in ${stored.mode} mode${stored.inferred ? ` (inferred: ${stored.inferred})` : ''}`;
    const reason =
      wanted.mode === 'live'
        ? `this daemon would run live (${wanted.from} is set), but its database was ${since} and may hold simulated devnet money, which must never be paid out on a real chain; refusing to start. ` +
          'Point DATABASE_URL (or DATA_DIR, for the embedded database) at a new database for live, or start without any <CODE>_RPC_URL to keep using this one on devnet'
        : `this daemon would run ${runsAs(wanted)}, but its database was ${since} and holds real payments, which simulated devnet money must never join; refusing to start. ` +
          "Start it with its live networks' <CODE>_RPC_URL as before, or point DATABASE_URL (or DATA_DIR) at a new database for devnet";
    return new DatabaseModeMismatchError(stored.mode, wanted.mode, variable, reason);
  }
}

/** A database from before the mode record whose history does not tell its mode: the operator must say it. */
export class DatabaseModeUnknownError extends ConfigError {
  constructor(readonly history: string) {
    super(
      'CHAIN_MODE',
      `this database predates the recorded chain mode and has history (${history}) that earlier versions could have made live or on devnet; ` +
        'state its mode once: CHAIN_MODE=live only if it always ran with CHAIN_MODE=live (without it, earlier versions kept the devnet controls on), otherwise CHAIN_MODE=devnet',
    );
  }
}

interface Queryable {
  query<R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

export interface DatabaseModeResult {
  readonly mode: ChainMode;
  /** True when this call wrote the record (first start, or a database from before the record). */
  readonly recorded: boolean;
  readonly inferred?: string;
}

/**
 * Compares the daemon's mode with the one its database remembers; throws DatabaseModeMismatchError
 * on a difference. With `record` (schema must exist), a database without a record gets one: a new
 * database the daemon's mode; one from before the record (it has watcher cursors, invoices or
 * withdrawals) the mode its history shows, see inferLegacyMode. Without `record` (before
 * migrations, e.g. a standby waiting for the engine lock) only an existing record is checked.
 */
export async function verifyDatabaseMode(db: Queryable, wanted: WantedChainMode, options: { record: boolean; now?: Date }): Promise<DatabaseModeResult | null> {
  const table = await db.query<{ t: string | null }>(`select to_regclass('system_settings')::text as t`);
  if (!table.rows[0]?.t) {
    if (options.record) throw new Error('system_settings is missing: migrations must run before the chain mode check');
    return null;
  }
  const read = async (): Promise<StoredChainMode | null> => {
    const rows = await db.query<{ value: StoredChainMode }>(`select value from system_settings where key = $1`, [CHAIN_MODE_KEY]);
    return rows.rows[0]?.value ?? null;
  };
  let stored = await read();
  let recorded = false;
  if (!stored) {
    if (!options.record) return null;
    const inferred = await inferLegacyMode(db, wanted);
    const value: StoredChainMode = { mode: inferred?.mode ?? wanted.mode, recorded_at: (options.now ?? new Date()).toISOString(), ...(inferred ? { inferred: inferred.reason } : {}) };
    const inserted = await db.query(`insert into system_settings (key, value, updated_at) values ($1, $2, $3) on conflict (key) do nothing returning key`, [
      CHAIN_MODE_KEY,
      JSON.stringify(value),
      options.now ?? new Date(),
    ]);
    recorded = inserted.rows.length > 0;
    // Two first starts at once: whichever wrote first is the record both compare with.
    stored = await read();
    if (!stored) throw new Error('the chain mode was not stored');
  }
  if (stored.mode !== wanted.mode) throw DatabaseModeMismatchError.of(stored, wanted);
  return { mode: stored.mode, recorded, ...(stored.inferred ? { inferred: stored.inferred } : {}) };
}

/**
 * The mode of a database set up before the record, from what it holds; null for an unused one
 * (no watcher cursor, invoice or withdrawal: it takes the daemon's mode). Earlier versions ran
 * every network on devnet unless it had an RPC URL, and only EVM networks could have one, so:
 * - devnet when the devnet clock was ever advanced, or a watcher ever ran on TRC20, TON or SOLANA;
 * - otherwise (history on EVM networks only) the history cannot tell: the mode stated with
 *   CHAIN_MODE is taken, and without it the start is refused (DatabaseModeUnknownError).
 */
async function inferLegacyMode(db: Queryable, wanted: WantedChainMode): Promise<{ mode: ChainMode; reason: string } | null> {
  const clock = await db.query(`select 1 from system_settings where key = $1`, [DEVNET_CLOCK_OFFSET_KEY]);
  const cursors = (await db.query<{ network: string }>(`select network from watcher_cursors order by network`)).rows.map((r) => r.network);
  const devnetOnly = cursors.filter((n) => !LIVE_CAPABLE_BEFORE_RECORD.includes(n));
  if (clock.rows.length > 0) return { mode: 'devnet', reason: 'the devnet clock was advanced' };
  if (devnetOnly.length > 0) return { mode: 'devnet', reason: `watchers ran on ${devnetOnly.join(', ')}, which could only run on devnet` };
  const used = await db.query(`select 1 where exists (select 1 from invoices) or exists (select 1 from withdrawals)`);
  if (cursors.length === 0 && used.rows.length === 0) return null;
  if (wanted.from !== 'CHAIN_MODE') throw new DatabaseModeUnknownError(cursors.length > 0 ? `watchers on ${cursors.join(', ')}` : 'invoices or withdrawals');
  return { mode: wanted.mode, reason: `history on ${cursors.join(', ') || 'EVM networks'} only; stated with CHAIN_MODE=${wanted.mode}` };
}

/** Runs verifyDatabaseMode on its own short-lived connection. */
export async function verifyDatabaseModeAt(databaseUrl: string, wanted: WantedChainMode, options: { record: boolean; now?: Date }): Promise<DatabaseModeResult | null> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'chainpay-mode-check' });
  await client.connect();
  try {
    return await verifyDatabaseMode(client as unknown as Queryable, wanted, options);
  } finally {
    await client.end().catch(() => undefined);
  }
}
