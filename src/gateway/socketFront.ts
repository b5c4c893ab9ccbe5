/**
 * The shared instance's front (issue #11 point 1): a Unix domain socket (mode 0600, in a 0700
 * folder) where each connection is one relayed stdio client with a gateway session of its own —
 * its promotions, client name, call_tool choice, and the sampling/elicitation requests meant for it.
 * When the last client has been gone for `idleExitMs`, `onIdle` runs (the instance ends).
 */
import { chmodSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { Logger } from '../trace/log.js';
import type { GatewaySession } from './session.js';
import { readHello } from '../share/hello.js';
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
}

/** A listening socket front. */
export interface SocketFront {
  /** Stops accepting clients and ends every connection. */
  close(): Promise<void>;
}

/** Listens on `options.path`; rejects when it cannot (the caller ends the instance). */
export async function serveSocket(options: SocketFrontOptions): Promise<SocketFront> {
  const { logger } = options;
  const sockets = new Set<Socket>();
  let counter = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = (): void => {
    clearTimeout(idleTimer);
    if (sockets.size > 0) return;
    idleTimer = setTimeout(() => {
      if (sockets.size === 0) options.onIdle();
    }, options.idleExitMs);
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
      armIdle();
    };
    socket.once('close', ended);
    void readHello(socket)
      .then(({ hello, ended: gone }) => {
        if (gone) return ended();
        const view = hello?.view;
        const session = options.createSession(id, MAX_STDIO_RESULT_BYTES, view);
        return serveStream(session, socket, socket, ended, () => options.modern(view));
      })
      .catch((error: Error) => {
        logger.warn(`client ${id}: ${error.message}`);
        ended();
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
  armIdle();
  return {
    async close() {
      clearTimeout(idleTimer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
