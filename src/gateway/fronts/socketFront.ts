/**
 * The shared instance's front: a Unix domain socket (mode 0600, in a 0700
 * folder) where each connection is one relayed stdio client with a gateway session of its own —
 * its promotions, client name, call_tool choice, and the sampling/elicitation requests meant for it.
 * When the last client has been gone for `idleExitMs`, `onIdle` runs (the instance ends).
 */
import { chmodSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Logger } from '../../trace/log.js';
import type { GatewaySession } from '../legacy/session.js';
import { readHello } from '../../share/hello.js';
import { MAX_STDIO_RESULT_BYTES, serveStream, type ModernStdio } from './stdio.js';

/** Socket front options. Times in ms. */
export interface SocketFrontOptions {
  readonly path: string;
  readonly logger: Logger;
  /**
   * A new session for client connection `id` on view `view` (undefined: the whole shelf; the relay
   * names it in its hello, share/hello.ts), results capped at `maxResultBytes` (stdio's cap).
   */
  readonly createSession: (id: string, maxResultBytes: number, view: string | undefined) => GatewaySession;
  /** The connection `id` ended: its session must be closed and forgotten. */
  readonly onSessionClosed: (id: string) => void;
  /** How long the instance outlives its last client; 0 ends it at once. */
  readonly idleExitMs: number;
  readonly onIdle: () => void;
  /** The Server for a relayed client on view `view` that opens with `server/discover` (modern era). */
  readonly modern: (view: string | undefined) => ModernStdio;
  /**
   * Opens the instance's dashboard for `toolshelf ui` and resolves with a one-time sign-in URL. A
   * connection that opens with {@link DASHBOARD_REQUEST} gets the URL as one JSON line (`{"url": …}`,
   * or `{"error": …}`) instead of a session, and keeps the instance alive while it stays open. The
   * socket itself is the credential: only its owner can open it (docs/dashboard.md).
   */
  readonly openDashboard?: () => Promise<string>;
}

/** The line `toolshelf ui` opens its connection with; no JSON-RPC message has this shape. */
export const DASHBOARD_REQUEST = '{"toolshelf":"dashboard"}';

/**
 * How long a new instance waits for its first client before it counts as idle, in ms, when
 * `idleExitMs` is shorter. The relay that started it polls for the socket every 100 ms; on a loaded
 * machine its connect can come well after the listen, and an instance that ended first closed that
 * client's connection as it arrived (test/e2e/shared.e2e.test.ts, "waits for the client that started
 * it"). 10 s: ample for a poll, short for an instance nobody reached.
 */
export const FIRST_CLIENT_WAIT_MS = 10_000;

/** A listening socket front. */
export interface SocketFront {
  /** Stops accepting clients and ends every connection. */
  close(): Promise<void>;
}

/** Writes the dashboard's sign-in URL (or why there is none) as one line; the connection stays open. */
async function answerDashboard(socket: Socket, open: () => Promise<string>, logger: Logger): Promise<void> {
  try {
    socket.write(`${JSON.stringify({ url: await open() })}\n`);
  } catch (error) {
    logger.warn(`dashboard: ${(error as Error).message}`);
    socket.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
  }
}

/** Listens on `options.path`; rejects when it cannot (the caller ends the instance). */
export async function serveSocket(options: SocketFrontOptions): Promise<SocketFront> {
  const { logger } = options;
  const sockets = new Set<Socket>();
  let counter = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = (waitMs: number): void => {
    clearTimeout(idleTimer);
    if (sockets.size > 0) return;
    idleTimer = setTimeout(() => {
      if (sockets.size > 0) return;
      // No connection is accepted from here on: a relay arriving now starts or waits for the next instance.
      server.close();
      options.onIdle();
    }, waitMs);
  };
  const server = createServer((socket) => {
    clearTimeout(idleTimer);
    sockets.add(socket);
    const id = `shared-${(counter += 1)}`;
    logger.debug(`client ${id} connected (${sockets.size} now)`);
    // A client that vanished mid-write (EPIPE, ECONNRESET) ends its session like a clean close.
    socket.on('error', (error) => logger.debug(`client ${id}: ${error.message}`));
    const ended = (): void => {
      if (!sockets.delete(socket)) return;
      socket.destroy();
      options.onSessionClosed(id);
      logger.debug(`client ${id} left (${sockets.size} remain)`);
      armIdle(options.idleExitMs);
    };
    socket.once('close', ended);
    // The first bytes say whether this is a relayed client or `toolshelf ui`; a client's are kept for its session.
    socket.once('data', (first: Buffer) => {
      if (options.openDashboard && first.toString('utf8').trimEnd() === DASHBOARD_REQUEST) return void answerDashboard(socket, options.openDashboard, logger);
      const input = new PassThrough();
      input.write(first);
      socket.pipe(input);
      socket.once('close', () => input.destroy());
      // A relay that was given a view names it in a hello line before its client's bytes (share/hello.ts).
      void readHello(input)
        .then(({ hello, ended: gone }) => {
          if (gone) return ended();
          const view = hello?.view;
          const session = options.createSession(id, MAX_STDIO_RESULT_BYTES, view);
          return serveStream(session, input, socket, ended, () => options.modern(view));
        })
        .catch((error: Error) => {
          logger.warn(`client ${id}: ${error.message}`);
          ended();
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(options.path, 0o600);
  server.on('error', (error) => logger.warn(`shared socket: ${error.message}`));
  armIdle(Math.max(options.idleExitMs, FIRST_CLIENT_WAIT_MS));
  return {
    async close() {
      clearTimeout(idleTimer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
