import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config';
import { startDaemon, type Daemon } from '../../src/daemon';
import { createLogger } from '../../src/observability/logger';
import { createTestDatabase } from '../support/database';

describe('several daemons on one database', () => {
  it('only one is the active engine; a second waits as a standby and takes over when the first stops', async () => {
    const db = await createTestDatabase('cp_engine');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-engine-'));
    const config = loadConfig({ DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '0', LOG_LEVEL: 'silent' });
    const logger = createLogger('silent');
    const first = await startDaemon(config, { logger });
    let second: Daemon | null = null;
    const secondStarting = startDaemon(config, { logger }).then((d) => (second = d));
    await new Promise((r) => setTimeout(r, 1500));
    expect(second).toBeNull();
    await first.stop();
    await secondStarting;
    expect(second).not.toBeNull();
    expect(second!.grpcPort).toBeGreaterThan(0);
    await second!.stop();
    await db.drop();
  });
});
