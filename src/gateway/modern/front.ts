/**
 * The modern (2026-07-28) front: serves modern requests over Streamable HTTP on the same `/mcp`
 * endpoint as the legacy session front (routed per request by the SDK's own classification), builds
 * the modern Server for a stdio connection that opened with `server/discover`, and publishes upstream
 * list changes on `subscriptions/listen` streams. It holds no client state, so any replica answers
 * any modern request; only a call held for `input_required` lives in one process (heldCalls.ts).
 * Source: DESIGN §14; SDK v2 docs/migration/support-2026-07-28.md (createMcpHandler, isLegacyRequest,
 * subscriptions/listen); issue #9 points 3 and 5.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isJsonContentType, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { SEARCHES_MCP_TOOLS } from '../clients.js';
import { clientUri } from '../passthrough.js';
import { sendWebResponse, webRequest } from '../webBridge.js';
import { HeldCalls } from './heldCalls.js';
import { modernServer, modernTools, type ModernOptions, type ModernServer } from './server.js';

/** The modern front of one toolshelf process. */
export interface ModernFront {
  /**
   * Serves one HTTP exchange whose parsed JSON `body` is a modern request; resolves false, having
   * written nothing, when the SDK classifies it legacy (left to the session front).
   */
  serveHttp(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<boolean>;
  /** A Server for a stdio connection pinned to the modern era (serveStdio's factory, modern arm). */
  stdioServer(): ModernServer;
  /** After a catalogue rebuild: tells listening modern clients if the modern tools/list changed. */
  catalogueChanged(): void;
  /** Publishes an upstream's resource or prompt change to listening modern clients. */
  forwardNotification(server: string, notification: { method: string; params?: Record<string, unknown> }): void;
  close(): Promise<void>;
}

/** What stdio and HTTP publish to (the SDK handler's `notify`, or the stdio instances' own list_changed). */
interface Publisher {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  resourceUpdated(uri: string): void;
}

/**
 * Builds the modern front. `current` gives a legacy session's options, without id, under the config
 * applied now: each modern request or connection is served with them as they are when it comes.
 */
export function createModernFront(current: () => Omit<ModernOptions, 'held'>): ModernFront {
  const held = new HeldCalls();
  const build = (): ModernServer => modernServer({ ...current(), held });
  let handler: McpHttpHandler | undefined;
  const http = (): McpHttpHandler =>
    (handler ??= createMcpHandler(({ era }) => (era === 'modern' ? build() : refuse()), {
      legacy: 'reject',
      onerror: (error) => current().logger.debug(`modern http: ${error.message}`),
    }));
  const stdio = new Set<ModernServer>();
  const publishers: Publisher[] = [
    { toolsChanged: () => handler?.notify.toolsChanged(), promptsChanged: () => handler?.notify.promptsChanged(), resourcesChanged: () => handler?.notify.resourcesChanged(), resourceUpdated: (uri) => handler?.notify.resourceUpdated(uri) },
    stdioPublisher(stdio),
  ];
  const fingerprint = (): string => {
    const options = current();
    return JSON.stringify([undefined, SEARCHES_MCP_TOOLS[0]].map((name) => modernTools(options, name)));
  };
  let listed = fingerprint();
  return {
    async serveHttp(req, res, body) {
      const request = webRequest(req, res);
      if (await isLegacyRequest(request, body)) return false;
      if (!isJsonContentType(request.headers.get('content-type'))) {
        res.writeHead(415, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' }, id: null }));
        return true;
      }
      await sendWebResponse(await http().fetch(request, { parsedBody: body }), res);
      return true;
    },
    stdioServer() {
      const server = build();
      stdio.add(server);
      server.onclose = () => void stdio.delete(server);
      return server;
    },
    catalogueChanged() {
      const now = fingerprint();
      if (now === listed) return;
      listed = now;
      for (const p of publishers) p.toolsChanged();
    },
    forwardNotification(server, { method, params }) {
      for (const p of publishers) {
        if (method === 'notifications/resources/list_changed') p.resourcesChanged();
        else if (method === 'notifications/prompts/list_changed') p.promptsChanged();
        else if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') p.resourceUpdated(clientUri(current().passthrough.routes, server, params.uri));
      }
    },
    close: async () => {
      await handler?.close();
      await Promise.all([...stdio].map((s) => s.close().catch(() => undefined)));
    },
  };
}

/** The stdio entry routes a pinned modern instance's own list_changed sends onto its listen streams. */
function stdioPublisher(servers: ReadonlySet<ModernServer>): Publisher {
  const each = (send: (s: ModernServer) => Promise<void>): void => {
    for (const s of servers) void send(s).catch(() => undefined);
  };
  return {
    toolsChanged: () => each((s) => s.sendToolListChanged()),
    promptsChanged: () => each((s) => s.sendPromptListChanged()),
    resourcesChanged: () => each((s) => s.sendResourceListChanged()),
    resourceUpdated: (uri) => each((s) => s.sendResourceUpdated({ uri })),
  };
}

/** The strict (`legacy: 'reject'`) handler never asks for a legacy instance; legacy HTTP is the session front's. */
function refuse(): never {
  throw new Error('toolshelf: legacy HTTP requests are served by the session front');
}
