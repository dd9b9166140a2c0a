import fs from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadGatewayEnv } from '../../gateway/main';
import { FakeDaemon } from './fake-daemon';
import { send } from './http-client';
import { ensureBuilt } from '../support/dist';
import { execArray, startScript } from '../support/start-scripts';

describe('loadGatewayEnv', () => {
  it('defaults', () => {
    expect(loadGatewayEnv({})).toEqual({
      httpPort: 8080,
      // Loopback: the embedded defaults are for one machine; containers set HTTP_HOST=0.0.0.0.
      httpHost: '127.0.0.1',
      grpcAddress: '127.0.0.1:50051',
      publicUrl: undefined,
      logLevel: 'info',
      rateLimit: undefined,
      shutdownGraceMs: 10_000,
    });
  });

  it('HTTP_HOST=0.0.0.0 where the gateway must be reached from outside: the image and docker-compose.yml set it', () => {
    expect(loadGatewayEnv({ HTTP_HOST: '0.0.0.0' }).httpHost).toBe('0.0.0.0');
    expect(fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8')).toMatch(/^ENV HTTP_HOST=0\.0\.0\.0$/m);
    const compose = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
    const gatewayService = compose.slice(compose.indexOf('\n  gateway:'));
    expect(gatewayService).toMatch(/^ {6}HTTP_HOST: 0\.0\.0\.0$/m);
  });

  it('LOG_FORMAT is json or pretty', () => {
    expect(() => loadGatewayEnv({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
    expect(() => loadGatewayEnv({ LOG_FORMAT: 'json' })).not.toThrow();
  });

  it('GRPC_PORT when CHAINPAY_GRPC_ADDR is not given; CHAINPAY_GRPC_ADDR wins', () => {
    expect(loadGatewayEnv({ GRPC_PORT: '6000' }).grpcAddress).toBe('127.0.0.1:6000');
    expect(loadGatewayEnv({ GRPC_PORT: '6000', CHAINPAY_GRPC_ADDR: 'daemon:7000' }).grpcAddress).toBe('daemon:7000');
    expect(loadGatewayEnv({ CHAINPAY_GRPC_ADDR: '' }).grpcAddress).toBe('127.0.0.1:50051');
  });

  it('rate limit from RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST', () => {
    expect(loadGatewayEnv({ RATE_LIMIT_PER_SECOND: '5' }).rateLimit).toEqual({ ratePerSecond: 5, burst: 10 });
    expect(loadGatewayEnv({ RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '3' }).rateLimit).toEqual({ ratePerSecond: 5, burst: 3 });
  });

  it('names the variable at fault', () => {
    expect(() => loadGatewayEnv({ HTTP_PORT: 'eighty' })).toThrow(/HTTP_PORT/);
    expect(() => loadGatewayEnv({ PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
  });
});

const root = path.resolve(__dirname, '../..');

describe('gateway/main.ts process', () => {
  it('runs with the same Node flags under npm run start:gateway and in docker-compose.yml', () => {
    const { flags, entry } = startScript('start:gateway');
    expect([...flags, entry]).toEqual([
      '--enable-source-maps',
      '--single-threaded-gc',
      '--no-allocation-site-pretenuring',
      '--min-semi-space-size=16',
      '--max-semi-space-size=32',
      'dist/gateway/main.js',
    ]);
    const compose = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`command: ${execArray('start:gateway')}`);
  });

  it('starts from the environment under npm run start:gateway (node on dist/), and exits 0 on SIGTERM to npm', async () => {
    await ensureBuilt();
    const daemon = await new FakeDaemon().start();
    const child = spawn('npm', ['run', 'start:gateway'], {
      cwd: root,
      env: { ...process.env, HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', CHAINPAY_GRPC_ADDR: daemon.address, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const line = out.split('\n').find((l) => l.includes('gateway listening'));
          if (line) resolve(JSON.parse(line).port);
        });
        child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      expect((await send(port, { path: '/readyz' })).status).toBe(200);
      const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      daemon.stop();
    }
  }, 300_000);
});
