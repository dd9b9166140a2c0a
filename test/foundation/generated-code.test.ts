import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)))
    .sort();
}

describe('generated gRPC code', () => {
  it('matches what buf generates from proto/ now (regenerate with `npm run proto:gen`)', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-buf-'));
    execFileSync(path.join(root, 'node_modules/.bin/buf'), ['generate', '--output', out], { cwd: root, stdio: 'pipe' });
    const fresh = path.join(out, 'src/grpc/generated');
    const committed = path.join(root, 'src/grpc/generated');
    expect(listFiles(fresh)).toEqual(listFiles(committed));
    for (const file of listFiles(fresh)) {
      expect({ file, text: fs.readFileSync(path.join(committed, file), 'utf8') }).toEqual({ file, text: fs.readFileSync(path.join(fresh, file), 'utf8') });
    }
  });

  it('passes buf lint', () => {
    expect(() => execFileSync(path.join(root, 'node_modules/.bin/buf'), ['lint'], { cwd: root, stdio: 'pipe' })).not.toThrow();
  });
});
