import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ConfigError } from '../config/config';

/** Another live daemon runs the embedded PostgreSQL of this DATA_DIR. */
export class DataDirInUseError extends ConfigError {
  constructor(dataDir: string, holder: string) {
    super('DATA_DIR', `${dataDir} is in use by another running chainpay daemon (${holder}); stop it first or give this daemon another DATA_DIR`);
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

/**
 * An exclusive lock on DATA_DIR for the life of this process: a listening socket in Linux's
 * abstract namespace named after the directory's real path. The kernel frees it when the process
 * ends in any way (SIGKILL too), so there is no stale lock file to clean up, and binding is atomic,
 * so of two daemons starting at once exactly one gets it. A second daemon connects to it and learns
 * the holder's pid. (Other platforms have no abstract sockets: no lock there.)
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  if (process.platform !== 'linux') return { release: async () => undefined };
  fs.mkdirSync(dataDir, { recursive: true });
  const real = fs.realpathSync(path.resolve(dataDir));
  const name = `\0chainpay-data-dir-${createHash('sha256').update(real).digest('hex').slice(0, 40)}`;
  const server = net.createServer((socket) => socket.end(`pid ${process.pid}\n`));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(name, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    throw new DataDirInUseError(real, await holderOf(name));
  }
  // The lock must not keep the process alive on its own.
  server.unref();
  return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function holderOf(name: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect(name);
    const done = (): void => resolve(text.trim() || 'pid unknown');
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', done);
    socket.on('error', done);
  });
}
