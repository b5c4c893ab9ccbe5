/**
 * The dashboard on a loopback port of its own: what the shared instance serves for `toolshelf ui`,
 * whose clients speak stdio and so have no HTTP front to put a page on. Bound to 127.0.0.1 on a free
 * port, Host and Origin checked as for `/mcp`, and every page session from a one-time login code that
 * only a process able to open the instance's owner-only socket can mint. Source: docs/dashboard.md.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { originRefusal } from '../gateway/fronts/http.js';
import type { Logger } from '../trace/log.js';
import type { DashboardHandler } from './routes.js';

/** A listening dashboard. */
export interface DashboardServer {
  /** `http://127.0.0.1:PORT`, with no path. */
  readonly origin: string;
  close(): Promise<void>;
}

/** Loopback only: the page is for the user at this machine. */
const HOST = '127.0.0.1';

/** Listens on a free loopback port; rejects when it cannot bind. */
export async function serveDashboard(handler: DashboardHandler, logger: Logger): Promise<DashboardServer> {
  const server: Server = createServer((req, res) => {
    const refused = originRefusal(req, HOST);
    if (refused) {
      res.writeHead(refused.status, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end(refused.message);
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    handler(req, res, url)
      .then((handled) => {
        if (handled) return;
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not found');
      })
      .catch((error: Error) => {
        logger.error(`dashboard: ${error.stack ?? error.message}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${HOST}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
