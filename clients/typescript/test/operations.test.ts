import fs from 'node:fs';
import path from 'node:path';
import { ChainpayClient, OPERATIONS } from '../src';

const PACKAGE = path.resolve(__dirname, '..');
/** The document the types were generated from (`npm run client:gen`; a root test keeps it current). */
const DOCUMENT = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };

function documentOperations(): { operationId: string; method: string; path: string }[] {
  return Object.entries(DOCUMENT.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ operationId: op.operationId ?? `(none: ${method} ${p})`, method: method.toUpperCase(), path: p })),
  );
}

describe('the client covers the OpenAPI document', () => {
  const client = new ChainpayClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'pk', apiSecret: 'sk' });

  it('every operationId of the document has a client method of that name, on the same method and path', () => {
    const ops = documentOperations();
    expect(ops.length).toBeGreaterThanOrEqual(14);
    for (const op of ops) {
      expect({ op: op.operationId, table: OPERATIONS[op.operationId as keyof typeof OPERATIONS] }).toEqual({ op: op.operationId, table: { method: op.method, path: op.path } });
      expect({ op: op.operationId, method: typeof (client as unknown as Record<string, unknown>)[op.operationId] }).toEqual({ op: op.operationId, method: 'function' });
    }
  });

  it('every operation the client calls is in the document', () => {
    const documented = new Set(documentOperations().map((o) => o.operationId));
    const extra = Object.keys(OPERATIONS).filter((id) => !documented.has(id));
    expect(extra).toEqual([]);
    for (const id of Object.keys(OPERATIONS)) expect({ id, method: typeof (client as unknown as Record<string, unknown>)[id] }).toEqual({ id, method: 'function' });
  });
});

describe('the package stands alone', () => {
  it('has no runtime dependencies', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
    expect(pkg.name).toBe('@chainpay/client');
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies ?? {}).toEqual({});
  });

  it('its sources import only Node built-ins and each other (never the daemon or gateway code)', () => {
    const dir = path.join(PACKAGE, 'src');
    const files = fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.ts'))
      .map((d) => path.join(d.parentPath, d.name));
    const offenders: string[] = [];
    for (const file of files) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*)'([^']+)'/g)) {
        const spec = m[1]!;
        const inside = spec.startsWith('.') && path.resolve(path.dirname(file), spec).startsWith(dir + path.sep);
        if (!inside && !spec.startsWith('node:')) offenders.push(`${path.relative(PACKAGE, file)} -> ${spec}`);
      }
    }
    expect(files.length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });
});
