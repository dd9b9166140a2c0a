import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The README walk-through is pasted into a shell in the repository: it must write no file into the
 * working tree (its merchant's api_secret once went to merchant.json there). Files it writes go
 * under /tmp; secrets stay in shell variables.
 */
const ROOT = path.resolve(__dirname, '..', '..');

/** The ```sh blocks of the README section whose heading starts with `heading`. */
function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.split('\n').findIndex((l) => l.startsWith(`## ${heading}`));
  if (start < 0) throw new Error(`no section "${heading}"`);
  const lines = markdown.split('\n').slice(start + 1);
  const end = lines.findIndex((l) => l.startsWith('## '));
  const section = lines.slice(0, end < 0 ? undefined : end).join('\n');
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Every path a shell snippet writes to: redirections, tee, and the output options of openssl and curl. */
function writtenPaths(script: string): string[] {
  const found: string[] = [];
  const add = (p: string | undefined): void => void (p && found.push(p.replace(/^["']|["']$/g, '')));
  for (const m of script.matchAll(/(?<![=<>&-])\d?>>?(?![&=>])\s*([^\s;&|)]+)/g)) add(m[1]);
  for (const m of script.matchAll(/\btee\s+(?:-a\s+)?([^\s;&|)]+)/g)) add(m[1]);
  for (const m of script.matchAll(/\s-(?:out|keyout|o|-output)\s+([^\s;&|)]+)/g)) add(m[1]);
  for (const m of script.matchAll(/\b(?:touch|mkdir(?:\s+-p)?)\s+([^\s;&|)]+)/g)) add(m[1]);
  return found;
}

const outsideTree = (p: string): boolean => p === '/dev/null' || p.startsWith('/tmp/');

describe('README walk-through: no file, and no secret, in the working tree', () => {
  it('finds what a snippet writes (the old walk-through wrote merchant.json and invoice.json)', () => {
    const old = `npm run -s chainpay -- merchant create --name "My shop" --json | tee merchant.json
curl -s -X POST http://127.0.0.1:8080/v1/invoices --data-binary "$BODY" | tee invoice.json
node -e 'x.on("end", () => 1)' > /tmp/demo/log 2>&1 & openssl req -keyout /tmp/k.pem -out cert.pem`;
    expect(writtenPaths(old)).toEqual(['/tmp/demo/log', 'merchant.json', 'invoice.json', '/tmp/k.pem', 'cert.pem']);
    expect(writtenPaths(old).filter((p) => !outsideTree(p))).toEqual(['merchant.json', 'invoice.json', 'cert.pem']);
  });

  it('the README walk-through writes only under /tmp', () => {
    const blocks = shellBlocks(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8'), 'A first walk-through');
    expect(blocks.length).toBeGreaterThan(0);
    const written = blocks.flatMap(writtenPaths);
    expect(written.length).toBeGreaterThan(0); // it does write (certificates, the receiver's log): all of it outside the tree
    expect(written.filter((p) => !outsideTree(p))).toEqual([]);
  });

  it('git ignores what chainpay and older walk-throughs leave in the tree', () => {
    const ignored = execFileSync('git', ['check-ignore', '--no-index', '.chainpay/operator-token', '.chainpay/master.key', 'merchant.json', 'invoice.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(ignored.trim().split('\n')).toEqual(['.chainpay/operator-token', '.chainpay/master.key', 'merchant.json', 'invoice.json']);
  });
});
