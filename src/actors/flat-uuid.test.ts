import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { flatUuid } from './flat-uuid';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('flatUuid', () => {
  it('is a lower-case v4 uuid, a new one each time', () => {
    const ids = Array.from({ length: 1000 }, flatUuid);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keeps a fraction of the heap randomUUID() keeps per retained id (one flat string instead of a tree of cons strings)', () => {
    // A separate process with --expose-gc: heap used after full GCs, 20,000 ids retained each way.
    const script = `
      const { randomUUID } = require('node:crypto');
      const { flatUuid } = require(${JSON.stringify(path.join(__dirname, 'flat-uuid.ts'))});
      const heap = (make) => { const keep = []; gc(); gc(); const h0 = process.memoryUsage().heapUsed;
        for (let i = 0; i < 20000; i++) keep.push(make()); gc(); gc(); const used = process.memoryUsage().heapUsed - h0; keep.length = 0; return used / 20000; };
      heap(flatUuid); heap(randomUUID);
      console.log(JSON.stringify({ flat: heap(flatUuid), raw: heap(randomUUID) }));`;
    const out = execFileSync(process.execPath, ['--expose-gc', '--require', require.resolve('tsx/cjs'), '-e', script], { encoding: 'utf8' });
    const { flat, raw } = JSON.parse(out.trim().split('\n').pop()!) as { flat: number; raw: number };
    // A flat 36-character string plus its array slot is ~70 bytes; the cons tree several hundred.
    expect(flat).toBeLessThan(120);
    expect(raw).toBeGreaterThan(flat * 3);
  });
});
