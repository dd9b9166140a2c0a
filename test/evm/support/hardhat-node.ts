import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

export interface HardhatNode {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A real `hardhat node` (chain id 31337, automine) on a free port. Hardhat insists on a config
 * file and a local installation: the config is written to a temp dir, the process runs in the repo.
 * `network`: other settings of its hardhat network (the TRON harness mines by hand and keeps reverted
 * transactions: `{ mining: { auto: false }, throwOnTransactionFailures: false }`).
 */
export async function startHardhatNode(network: Record<string, unknown> = {}): Promise<HardhatNode> {
  // freePort() closes its probe before hardhat binds: another process can take the port meanwhile
  // (then our node exits with EADDRINUSE while the other one answered our readiness check). Our
  // node's own "Started ... server at" line is the proof it listens; a lost race tries a new port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(network);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === 3) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOnFreePort(network: Record<string, unknown>): Promise<HardhatNode> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chainpay-hardhat-'));
  const config = path.join(dir, 'hardhat.config.js');
  const settings = { chainId: 31337, mining: { auto: true }, ...network };
  writeFileSync(config, `module.exports = { networks: { hardhat: ${JSON.stringify(settings)} } };\n`);
  const port = await freePort();
  const child = spawn(path.join(ROOT, 'node_modules/.bin/hardhat'), ['--config', config, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
    cwd: ROOT,
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let started = false;
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.stdout?.on('data', (chunk: Buffer) => {
    if (started) return; // hardhat logs every call: stop looking once it has started
    stdout = (stdout + chunk.toString()).slice(-4000);
    started = stdout.includes(`server at http://127.0.0.1:${port}/`);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(
      url,
      child,
      () => stderr,
      () => started,
    );
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    if (/EADDRINUSE/.test(stderr + stdout)) throw new PortTakenError(`port ${port} taken before hardhat bound it`);
    throw error;
  }
  return {
    url,
    async stop() {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitReady(url: string, child: ChildProcess, stderr: () => string, started: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited (${child.exitCode}): ${stderr()}`);
    if (!started()) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`hardhat node did not start: ${stderr()}`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
