/**
 * Baseline of the GET scenario: a bare Node HTTP server answering every request with one fixed
 * JSON body (the size of a real invoice response) and the same headers our gateway sends.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveIpc } from '../support/ipc';

let server: http.Server | null = null;

serveIpc({
  start: async (a: { body: string }) => {
    const body = Buffer.from(a.body, 'utf8');
    server = http.createServer((_req, res) => {
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Length', body.length);
      res.setHeader('Cache-Control', 'no-store');
      res.end(body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, bytes: body.length };
  },
  stop: async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server?.closeAllConnections();
  },
});
