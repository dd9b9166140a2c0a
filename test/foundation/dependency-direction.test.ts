import fs from 'node:fs';
import path from 'node:path';

/**
 * DESIGN.md, Layout: dependencies point one way, each chain SDK has one importer, and the gateway
 * imports only the generated gRPC client and the pure, dependency-free helpers of src/lib (which
 * both sides share). Checked on the import statements of the production code (unit tests beside
 * the code may use other helpers).
 */
const ROOT = path.resolve(__dirname, '..', '..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated' && entry.name !== '__fixtures__') out.push(...sources(rel));
    } else if (/\.ts$/.test(entry.name) && !/\.test\.ts$|\.test-support\.ts$|\.d\.ts$/.test(entry.name)) {
      out.push(rel);
    }
  }
  return out;
}

/** Every module specifier a file imports (static imports, `import type`, dynamic imports). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((m) => m[1]!);
}

/** Files of `dir` importing a module that `forbidden` matches (module specifiers resolved to repo paths). */
function offenders(dir: string, forbidden: (target: string) => boolean): string[] {
  const found: string[] = [];
  for (const file of sources(dir)) {
    for (const spec of importsOf(file)) {
      const target = spec.startsWith('.') ? path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)) : spec;
      if (forbidden(target)) found.push(`${file} -> ${spec}`);
    }
  }
  return found;
}

const sdk = (name: string) => (target: string) => target === name || target.startsWith(`${name}/`);

/** What the gateway may not import of the daemon: everything under src/ but the generated code and src/lib. */
const refusedToGateway = (target: string): boolean => target.startsWith('src/') && !target.startsWith('src/grpc/generated/') && !target.startsWith('src/lib/');

/** What src/lib may not import: anything of ours outside src/lib, and any package (Node's built-ins excepted). */
const refusedToLib = (target: string): boolean => {
  if (target.startsWith('node:')) return false;
  return !target.startsWith('src/lib/');
};

describe('dependency direction (DESIGN.md, Layout and Chains)', () => {
  it.each([
    ['viem', 'src/chains/evm'],
    ['tronweb', 'src/chains/tron'],
    ['@ton/ton', 'src/chains/ton'],
    ['@ton/core', 'src/chains/ton'],
    ['@solana/web3.js', 'src/chains/solana'],
  ])('%s is imported only under %s', (pkg, home) => {
    const outside = offenders('src', sdk(pkg)).filter((o) => !o.startsWith(`${home}/`));
    expect(outside).toEqual([]);
  });

  it('a chain family folder imports no other family folder (shared code lives in src/chains/)', () => {
    const families = ['evm', 'tron', 'ton', 'solana'];
    for (const family of families) {
      const others = families.filter((f) => f !== family).map((f) => `src/chains/${f}/`);
      expect([family, offenders(`src/chains/${family}`, (t) => others.some((o) => `${t}/`.startsWith(o)))]).toEqual([family, []]);
    }
  });

  it('domain imports nothing of ours but its own modules', () => {
    expect(offenders('src/domain', (t) => t.startsWith('src/') && !t.startsWith('src/domain/'))).toEqual([]);
  });

  it('nothing below grpc imports grpc (actors, chains, store, domain, webhooks, views)', () => {
    for (const dir of ['src/actors', 'src/chains', 'src/store', 'src/domain', 'src/webhooks', 'src/views']) {
      expect(offenders(dir, (t) => t.startsWith('src/grpc'))).toEqual([]);
    }
  });

  it('views (the invoice as the control plane and webhooks show it) import only domain, store and their own modules', () => {
    const allowed = ['src/domain/', 'src/store/', 'src/views/'];
    expect(offenders('src/views', (t) => t.startsWith('src/') && !allowed.some((a) => t.startsWith(a)))).toEqual([]);
  });

  it('the gateway imports only the generated gRPC code and src/lib of the daemon', () => {
    expect(offenders('gateway', refusedToGateway)).toEqual([]);
  });

  it('the gateway rule refuses the rest of the daemon, src/lib aside', () => {
    // Targets as offenders() resolves them from gateway/*.ts.
    const target = (spec: string) => path.relative(ROOT, path.resolve(ROOT, 'gateway', spec));
    for (const spec of ['../src/grpc/relay', '../src/grpc/errors', '../src/domain/money', '../src/store/entities', '../src/library/x', '../src/lib-extra/x', '../src/lib/../grpc/relay']) {
      expect([spec, refusedToGateway(target(spec))]).toEqual([spec, true]);
    }
    for (const spec of ['../src/lib/write-batcher', '../src/grpc/generated/chainpay/v1/relay', './relay-client', '@grpc/grpc-js']) {
      expect([spec, refusedToGateway(target(spec))]).toEqual([spec, false]);
    }
  });

  it('the REST JSON of Invoice and Withdrawal is defined once (src/lib/rest-json.ts), for the gateway and the webhooks alike', () => {
    const importers = (dir: string) => offenders(dir, (t) => t === 'src/lib/rest-json').map((o) => o.split(' -> ')[0]);
    expect(importers('gateway')).toEqual([path.join('gateway', 'rest-encoding.ts')]);
    // outbox.ts wraps the REST objects as event bodies; ping.ts only the envelope (webhookBodyJson) of a ping.
    expect(importers('src/webhooks')).toEqual([path.join('src', 'webhooks', 'outbox.ts'), path.join('src', 'webhooks', 'ping.ts')]);
    // No second encoder of either object: nothing else spells the REST field lists out.
    const spelled = [...sources('src'), ...sources('gateway')].filter((f) =>
      /rejection_reason: orNull|rejection_reason: \w+\.rejection_reason \?\? null|metadata: JSON\.parse/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')),
    );
    expect(spelled).toEqual([path.join('src', 'lib', 'rest-json.ts')]);
  });

  it('src/lib is pure: it imports only its own modules and Node built-ins', () => {
    expect(fs.readdirSync(path.join(ROOT, 'src/lib')).some((f) => f.endsWith('.ts'))).toBe(true);
    expect(offenders('src/lib', refusedToLib)).toEqual([]);
    for (const t of ['src/grpc/relay', 'src/domain/errors', '@grpc/grpc-js', 'pino', 'decimal.js']) expect([t, refusedToLib(t)]).toEqual([t, true]);
    for (const t of ['src/lib/other', 'node:events']) expect([t, refusedToLib(t)]).toEqual([t, false]);
  });

  it('no import cycles between the folders of src/ (file-level cycles: biome noImportCycles, npm run lint)', () => {
    const folderOf = (file: string): string => file.split(path.sep).slice(0, 2).join('/');
    const edges = new Map<string, Set<string>>();
    for (const file of sources('src')) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec));
        const [from, to] = [folderOf(file), folderOf(target)];
        if (from !== to && to.startsWith('src/')) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
      for (const next of edges.get(from) ?? []) {
        if (next === to) return true;
        if (!seen.has(next)) {
          seen.add(next);
          if (reaches(next, to, seen)) return true;
        }
      }
      return false;
    };
    const cycles = [...edges.keys()].filter((folder) => reaches(folder, folder));
    expect(cycles).toEqual([]);
    // The check sees a cycle when there is one.
    edges.set('src/x', new Set(['src/y']));
    edges.set('src/y', new Set(['src/x']));
    expect(reaches('src/x', 'src/x')).toBe(true);
  });
});
