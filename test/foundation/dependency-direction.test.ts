import fs from 'node:fs';
import path from 'node:path';

/**
 * DESIGN.md, Layout: dependencies point one way, each chain SDK has one importer, and the gateway
 * imports only the generated gRPC client. Checked on the import statements of the production code
 * (unit tests beside the code may use other helpers).
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

describe('dependency direction (DESIGN.md, Layout and Chains)', () => {
  it.each([
    ['viem', 'src/chains/evm'],
    ['tronweb', 'src/chains/tron'],
    ['@ton/ton', 'src/chains/ton'],
    ['@solana/web3.js', 'src/chains/solana'],
  ])('%s is imported only under %s', (pkg, home) => {
    const outside = offenders('src', sdk(pkg)).filter((o) => !o.startsWith(`${home}/`));
    expect(outside).toEqual([]);
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

  it('the gateway imports only the generated gRPC code of the daemon', () => {
    expect(offenders('gateway', (t) => t.startsWith('src/') && !t.startsWith('src/grpc/generated/'))).toEqual([]);
  });
});
