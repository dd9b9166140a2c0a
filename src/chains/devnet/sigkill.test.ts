import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAddressCodec } from '../codecs';
import { DevnetAdapter } from './adapter';
import { manualClock, Recorder, CountingSet } from './testing';

const MNEMONIC = 'test test test test test test test test test test test junk';

/** A real SIGKILL: a child process pays and mines with a journal, then dies without closing it. */
it('a chain journaled by a SIGKILLed process replays with every acknowledged block', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-devnet-kill-'));
  const script = path.join(dir, 'child.ts');
  fs.writeFileSync(
    script,
    `import { DevnetAdapter } from ${JSON.stringify(path.join(__dirname, 'adapter'))};
import { createAddressCodec } from ${JSON.stringify(path.join(__dirname, '..', 'codecs'))};
const clock = { now: () => new Date(), setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (id: unknown) => clearTimeout(id as NodeJS.Timeout) };
const chain = new DevnetAdapter({ network: 'BEP20', codec: createAddressCodec('BEP20', { mnemonic: ${JSON.stringify(MNEMONIC)} }), clock, blockIntervalMs: 0, storageDir: ${JSON.stringify(dir)} });
(async () => {
  await chain.mine(3);
  const paid = await chain.pay({ to: chain.deriveDepositAddress(0), amount: '99.5' });
  await chain.mine(1);
  process.stdout.write(JSON.stringify({ paid, head: chain.head() }) + '\\n');
  setInterval(() => undefined, 1000); // stay alive until killed
})();
`,
  );
  // `node --import tsx` (not the tsx CLI, which forks): the killed pid is the process holding the journal.
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'], cwd: path.join(__dirname, '..', '..', '..') });
  let line: string;
  try {
    line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
      setTimeout(() => reject(new Error('child did not report')), 15_000).unref();
    });
  } finally {
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
  }
  const { paid, head } = JSON.parse(line) as { paid: { txHash: string; blockHeight: number }; head: { head: number; hash: string } };

  const chain = new DevnetAdapter({ network: 'BEP20', codec: createAddressCodec('BEP20', { mnemonic: MNEMONIC }), clock: manualClock(), blockIntervalMs: 0, storageDir: dir });
  try {
    expect(chain.head()).toEqual(head);
    const rec = new Recorder();
    const to = chain.normalizeAddress(chain.deriveDepositAddress(0));
    const watch = chain.watch({ from: { height: 0, hash: chain.block(0)!.hash }, watched: new CountingSet(new Set([to])), sink: rec.sink });
    await rec.until(() => rec.lastBlock() === head.head);
    await watch.stop();
    expect(rec.of('transfer')).toEqual([expect.objectContaining({ txHash: paid.txHash, blockHeight: 4, amount: '99.5' })]);
  } finally {
    await chain.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 20_000);
