import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** `GET /metrics` in the Prometheus text format on METRICS_PORT (0: an ephemeral port). */
export async function startMetricsServer(options: { host: string; port: number; registry: Registry; logger: Logger }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    options.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(text),
      (err: unknown) => {
        options.logger.error({ err }, 'metrics scrape failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The metrics server on a default port (`npm start`'s 9464): one taken by another program (or a
 * second `npm start`) costs the metrics, not the start. null then, with a warning naming the fix.
 */
export async function startDefaultMetricsServer(options: { host: string; port: number; registry: Registry; logger: Logger }): Promise<MetricsServer | null> {
  try {
    const server = await startMetricsServer(options);
    options.logger.info({ port: server.port, host: options.host }, 'metrics listening on /metrics');
    return server;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    options.logger.warn({ port: options.port, host: options.host }, 'metrics not served: the port is taken (set METRICS_PORT to another port, 0 for any)');
    return null;
  }
}

/**
 * The daemon's /metrics: on METRICS_PORT when it is set (a taken port stops the start), else on the
 * default port `npm start` asks for (a taken port is a warning), else none.
 */
export async function startDaemonMetricsServer(options: {
  host: string;
  port: number | undefined;
  defaultPort: number | undefined;
  registry: Registry;
  logger: Logger;
}): Promise<MetricsServer | null> {
  const { host, registry, logger } = options;
  if (options.port !== undefined) {
    const server = await startMetricsServer({ host, port: options.port, registry, logger });
    logger.info({ port: server.port, host }, 'metrics listening on /metrics');
    return server;
  }
  return options.defaultPort === undefined ? null : startDefaultMetricsServer({ host, port: options.defaultPort, registry, logger });
}
