/**
 * The modern (2026-07-28) front: serves modern requests over Streamable HTTP on the same `/mcp`
 * endpoint as the legacy session front (routed per request by the SDK's own classification), builds
 * the modern Server for a stdio connection that opened with `server/discover`, and publishes upstream
 * list changes on `subscriptions/listen` streams. It holds no client state, so any replica answers
 * any modern request; only a call held for `input_required` lives in one process (callRounds.ts).
 * Source: docs/protocol-eras.md; SDK v2 docs/migration/support-2026-07-28.md (createMcpHandler, isLegacyRequest,
 * subscriptions/listen).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, isJsonContentType, isLegacyRequest, type McpHttpHandler } from '@modelcontextprotocol/server';
import { SEARCHES_MCP_TOOLS } from '../clients.js';
import { MAX_SESSIONS } from '../sessionOptions.js';
import { clientUri } from '../passthrough.js';
import { sendWebResponse, webRequest } from '../fronts/webBridge.js';
import { unreadFilter, type UnreadBacklog } from '../fronts/backlog.js';
import { errorResponse, readableId } from '../fronts/invalidMessage.js';
import { HeldCalls } from './callRounds.js';
import { holdUris, listenRequest, StdioListens, withResourceSubscriptions } from './listens.js';
import { modernTools } from '../toolList.js';
import { modernServer, type ModernOptions, type ModernServer } from './server.js';
import type { UpstreamSubscriptions } from '../subscriptions.js';
import type { ModernStdio } from '../fronts/stdio.js';
import { textDigest } from '../../lib/hash.js';

/** The modern front of one toolshelf process. */
export interface ModernFront {
  /**
   * Serves one HTTP exchange whose parsed JSON `body` is a modern request; resolves false, having
   * written nothing, when the SDK classifies it legacy (left to the session front). `backlog` is what
   * waits unread on its connection: while it refuses answers, the answer is a short -32603 error under
   * the request's id instead, and notifications on the response stream are dropped while it says so
   * (backlog.ts, docs/robustness.md).
   */
  serveHttp(req: IncomingMessage, res: ServerResponse, body: unknown, backlog?: UnreadBacklog): Promise<boolean>;
  /**
   * The modern side of one stdio connection: `server()` for serveStdio's factory (modern arm), and
   * `observe` for every inbound message and `close` at its end, so the resource URIs it listens to
   * are subscribed upstream while its streams are open.
   */
  stdioConnection(): ModernStdioConnection;
  /** After a catalogue rebuild: tells listening modern clients if the modern tools/list changed. */
  catalogueChanged(): void;
  /** Publishes an upstream's resource or prompt change to listening modern clients. */
  forwardNotification(server: string, notification: { method: string; params?: Record<string, unknown> }): void;
  close(): Promise<void>;
}

/** One modern stdio connection (see {@link ModernFront.stdioConnection}). */
export interface ModernStdioConnection extends ModernStdio {
  server(): ModernServer;
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
 * `maxListens` caps the `subscriptions/listen` streams open at once over HTTP (default the legacy
 * session cap, {@link MAX_SESSIONS}): each holds a socket, and a client that opens them and never closes them
 * must not exhaust the process; past it a listen gets 503. The same number caps the
 * calls held for their client's `input_required` retry (callRounds.ts).
 */
export function createModernFront(current: () => Omit<ModernOptions, 'held'>, maxListens = MAX_SESSIONS): ModernFront {
  const held = new HeldCalls(maxListens);
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
  // A digest, not the JSON: with every tool listed (a client that searches MCP tools itself) the JSON is megabytes.
  const fingerprint = (): string => {
    const options = current();
    return textDigest(JSON.stringify([undefined, SEARCHES_MCP_TOOLS[0]].map((name) => modernTools(options, name))));
  };
  let listed = fingerprint();
  const upstream = (): UpstreamSubscriptions => current().passthrough.upstreamSubscriptions;
  let connections = 0;
  let openListens = 0;
  return {
    async serveHttp(req, res, body, backlog) {
      const request = webRequest(req, res);
      if (await isLegacyRequest(request, body)) return false;
      backlog?.track(res);
      if (!isJsonContentType(request.headers.get('content-type'))) {
        res.writeHead(415, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' }, id: null }));
        return true;
      }
      const listen = listenRequest(body);
      if (listen) {
        if (openListens >= maxListens) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: listen.id, error: { code: -32000, message: `Too many subscriptions/listen streams open (${maxListens}); retry later or close one` } }));
          return true;
        }
        openListens += 1;
        // The URIs it names are held while this stream is open; the acknowledgment promises only what upstreams agreed to.
        const holder = listen.uris.length > 0 ? `http-${(connections += 1)}:listen` : undefined;
        let gone = false;
        res.once('close', () => {
          gone = true;
          openListens -= 1;
          if (holder) upstream().release(holder);
        });
        if (holder) {
          body = withResourceSubscriptions(body, await holdUris(upstream(), holder, listen.uris));
          // The client left while the subscriptions were being made: drop what they added.
          if (gone) upstream().release(holder);
        }
      }
      const response = await http().fetch(request, { parsedBody: body });
      if (!backlog) {
        await sendWebResponse(response, res);
        return true;
      }
      if (backlog.clear() || !isJsonContentType(response.headers.get('content-type'))) {
        // A stream (SSE) is judged message by message as it is written out.
        await sendWebResponse(response, res, undefined, unreadFilter(backlog));
        return true;
      }
      const text = await response.text();
      const verdict = backlog.answer(() => Buffer.byteLength(text));
      if (verdict.kind === 'refuse') {
        // Its answer would wait behind what the client has not read: a short error takes its place.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(errorResponse(readableId(body), -32603, verdict.reason)));
        return true;
      }
      await sendWebResponse(new Response(text, response), res);
      return true;
    },
    stdioConnection() {
      const listens = new StdioListens(`stdio-${(connections += 1)}`, upstream);
      return {
        server: () => {
          const server = build();
          stdio.add(server);
          server.onclose = () => {
            stdio.delete(server);
            listens.close();
          };
          return server;
        },
        observe: (message) => listens.observe(message),
        close: () => listens.close(),
      };
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
