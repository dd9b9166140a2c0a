import pino from 'pino';
import { Registry } from 'prom-client';
import { startDefaultMetricsServer, startMetricsServer } from './metrics-server';

/** `npm start`'s default metrics port (9464) taken by another program costs the metrics, not the start. */
describe('startDefaultMetricsServer', () => {
  function capture(): { logger: pino.Logger; lines: { level: number; msg: string; port?: number }[] } {
    const lines: { level: number; msg: string; port?: number }[] = [];
    return { logger: pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) }), lines };
  }

  it('serves /metrics on a free port; on a taken one answers null with a warning; an explicit METRICS_PORT taken still fails', async () => {
    const registry = new Registry();
    const free = capture();
    const server = await startDefaultMetricsServer({ host: '127.0.0.1', port: 0, registry, logger: free.logger });
    expect(server).not.toBeNull();
    expect((await fetch(`http://127.0.0.1:${server!.port}/metrics`)).status).toBe(200);
    expect(free.lines.map((l) => l.msg)).toEqual(['metrics listening on /metrics']);

    const taken = capture();
    expect(await startDefaultMetricsServer({ host: '127.0.0.1', port: server!.port, registry, logger: taken.logger })).toBeNull();
    expect(taken.lines).toEqual([expect.objectContaining({ level: 40, port: server!.port, msg: expect.stringContaining('metrics not served: the port is taken') })]);
    await expect(startMetricsServer({ host: '127.0.0.1', port: server!.port, registry, logger: taken.logger })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await server!.close();
    // Not a taken port (a host that is not this machine's): not swallowed.
    await expect(startDefaultMetricsServer({ host: '192.0.2.1', port: 0, registry, logger: taken.logger })).rejects.toMatchObject({ code: 'EADDRNOTAVAIL' });
  });
});
