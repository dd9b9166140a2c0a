import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * dist/ (`npm run build`) as the sources stand now, for the tests that run what ships: `npm start`,
 * the production install. `npm ci` builds it (`prepare`); after an edit it is rebuilt here (~30 s
 * of CPU), so such a test never passes on yesterday's code. Test files run in parallel: one builds
 * while the others wait on a lock directory.
 */
const ROOT = path.resolve(__dirname, '../..');
export const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, '.built');
const LOCK = path.join(ROOT, 'dist.lock');
/** What the build reads (scripts/build.js, tsconfig.build.json). */
const INPUTS = ['src', 'gateway', 'proto', 'scripts/build.js', 'tsconfig.json', 'tsconfig.build.json'];

function newestMtime(p: string): number {
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

function fresh(): boolean {
  if (!fs.existsSync(STAMP)) return false;
  const built = fs.statSync(STAMP).mtimeMs;
  return INPUTS.every((input) => newestMtime(path.join(ROOT, input)) <= built);
}

async function locked<T>(fn: () => T): Promise<T> {
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock older than any build is one whose holder died.
      if (Date.now() - fs.statSync(LOCK).mtimeMs > 10 * 60_000) fs.rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds dist/ unless it is newer than every source; returns its path. */
export async function ensureBuilt(): Promise<string> {
  if (fresh()) return DIST;
  await locked(() => {
    if (fresh()) return;
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run build failed (${build.status}):\n${build.stdout}\n${build.stderr}`);
  });
  return DIST;
}

/**
 * The compiled file of a `src/` entry point when dist/ is as new as every source (always so on CI:
 * `npm ci` builds it), else null. A daemon spawned from it starts about a second sooner than through
 * tsx, and runs the code that ships; a stale dist/ is never used, the TypeScript source is.
 */
export function freshDistEntry(entry: string): string | null {
  if (!entry.startsWith('src/') || !entry.endsWith('.ts')) return null;
  const compiled = path.join(DIST, entry.replace(/\.ts$/, '.js'));
  return fs.existsSync(compiled) && fresh() ? compiled : null;
}
