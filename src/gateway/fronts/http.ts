/**
 * Streamable HTTP at `/mcp`: a GatewaySession (and SDK Server) per HTTP session, Host and Origin
 * checked against DNS rebinding, an optional bearer token compared in constant time, a request body
 * limit, idle sessions closed, DELETE ending a session, and at the session cap the least recently
 * used idle session closed so a new client always gets in. Slow clients are bounded by header and
 * request timeouts and each peer address by a connection cap (docs/security.md). Source: docs/http.md; MCP spec, Transports ›
 * Streamable HTTP (security warning, session management).
 */
import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { hostname as machineName, networkInterfaces } from 'node:os';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { isInitializeRequest, WebStandardStreamableHTTPServerTransport, type JSONRPCMessage, type WebStandardStreamableHTTPServerTransportOptions } from '@modelcontextprotocol/server';
import type { Logger } from '../../trace/log.js';
import { PeerBacklogs, UnreadBacklog, unreadFilter, type UnreadLimits } from './backlog.js';
import { allowedHostnames, clientUrl, hostOfHeader, isWildcard } from './hostCheck.js';
import { errorResponse, invalidReason, readableId, type ReadableId } from './invalidMessage.js';
import type { GatewaySession } from '../legacy/session.js';
import { MAX_SESSIONS } from '../sessionOptions.js';
import { MAX_BACKLOG_BYTES, MAX_PENDING_OUTPUT_BYTES } from './stdio.js';
import { unknownViewText } from './views.js';
import { sendWebResponse, webRequest } from './webBridge.js';

/** Largest accepted request body in bytes (4 MiB, the SDK transport's own limit). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A session idle (no exchange open, see `Live`) for this long is closed, in ms (30 min). */
export const DEFAULT_IDLE_MS = 30 * 60_000;
/**
 * Longest time a client may take to send a request's headers, in ms: a client that sends them byte by
 * byte (slowloris) is answered 408 and closed. Node's default is 60 s.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Longest time a client may take to send a whole request (headers and body), in ms (Node's default: 300 s). */
export const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Most connections open at once from one peer address; the next is answered 503 and closed. Local
 * clients all come from the loopback address, and each keeps a few (a GET stream, POSTs under way),
 * so the cap is far above what honest clients hold and far below what exhausts the process.
 */
export const MAX_CONNECTIONS_PER_PEER = 256;
/**
 * Most bytes waiting unread for all the HTTP clients of one peer address together (160 MiB, four
 * clients' worth of {@link MAX_PENDING_OUTPUT_BYTES}): past it, the clients of that address that have
 * anything unread get no notifications and their answers become a short error, and the others get
 * answers up to {@link SMALL_ANSWER_BYTES}. A client that opened 30 connections and read none of
 * their 9 MiB answers held about 230 MB unbounded while each connection stayed under its own 40 MiB.
 * Local clients all come from the loopback address, so a reading client keeps its ordinary calls
 * answered (docs/robustness.md).
 */
export const MAX_PEER_UNREAD_BYTES = 4 * MAX_PENDING_OUTPUT_BYTES;
/** The largest answer sent to a client with nothing unread while its address is over {@link MAX_PEER_UNREAD_BYTES} (1 MiB). */
export const SMALL_ANSWER_BYTES = 1024 * 1024;

/**
 * What may wait unread for an HTTP client, as on stdio: notifications dropped past
 * {@link MAX_BACKLOG_BYTES} (20 MiB), answers refused past {@link MAX_PENDING_OUTPUT_BYTES} (40 MiB),
 * and a peer address's clients together bounded by {@link MAX_PEER_UNREAD_BYTES}.
 */
export const HTTP_UNREAD_LIMITS: UnreadLimits = { notifications: MAX_BACKLOG_BYTES, answers: MAX_PENDING_OUTPUT_BYTES, peer: MAX_PEER_UNREAD_BYTES, smallAnswer: SMALL_ANSWER_BYTES };

/** Environment variable that overrides {@link MAX_CONNECTIONS_PER_PEER} (a positive integer). */
export const MAX_CONNECTIONS_PER_PEER_ENV = 'TOOLSHELF_MAX_CONNECTIONS_PER_PEER';

/** Environment variable that overrides {@link MAX_SESSIONS} (a positive integer). */
export const MAX_SESSIONS_ENV = 'TOOLSHELF_MAX_SESSIONS';

/** The session cap from `env[MAX_SESSIONS_ENV]`; undefined when unset or not a positive integer. */
export function maxSessionsFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  return positiveInteger(env[MAX_SESSIONS_ENV]);
}

/** The per-peer connection cap from `env[MAX_CONNECTIONS_PER_PEER_ENV]`; undefined when unset or not a positive integer. */
export function maxConnectionsPerPeerFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  return positiveInteger(env[MAX_CONNECTIONS_PER_PEER_ENV]);
}

function positiveInteger(text: string | undefined): number | undefined {
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** What a connection over the per-peer cap gets before it is closed (written raw: no request was read). */
const TOO_MANY_CONNECTIONS =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n\r\n' +
  JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Too many connections from this address: close some and retry' } });

/** Options for {@link serveHttp}. */
export interface HttpOptions {
  readonly host: string;
  readonly port: number;
  /** Bearer token required on every request when set. */
  readonly token?: string;
  readonly idleMs?: number;
  readonly logger: Logger;
  /** Makes a fresh session for a new HTTP session id, on view `view` (undefined: the whole shelf; docs/views.md). */
  readonly createSession: (id: string, view: string | undefined) => GatewaySession;
  /** The views of the config applied now, served at `/mcp/NAME` (read per request: a reload may change them). */
  readonly views?: () => readonly string[];
  /** Most sessions at once (default {@link MAX_SESSIONS}). */
  readonly maxSessions?: number;
  /** Most connections from one peer address at once (default {@link MAX_CONNECTIONS_PER_PEER}). */
  readonly maxConnectionsPerPeer?: number;
  /** Header and whole-request time limits in ms (defaults {@link HEADERS_TIMEOUT_MS}, {@link REQUEST_TIMEOUT_MS}). */
  readonly headersTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /** Told when a session ends (DELETE, idle, transport closed, shutdown). */
  readonly onSessionClosed: (id: string) => void;
  /**
   * Serves a modern (2026-07-28) request, resolving false for a legacy one (docs/protocol-eras.md):
   * modern requests have no session and are answered before the session logic.
   */
  readonly modern?: (req: IncomingMessage, res: ServerResponse, body: unknown, view: string | undefined, backlog: UnreadBacklog) => Promise<boolean>;
  /**
   * Serves a path other than `/mcp` (the dashboard, docs/dashboard.md) after the Host and Origin checks,
   * resolving false for one it does not know (404). The dashboard asks for its own sessions: a browser
   * sends no bearer token.
   */
  readonly dashboard?: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;
}

/** A running HTTP front: the URL a client uses and a close that ends every session. */
export interface HttpFront {
  /** The bound address's URL; for a wildcard bind its loopback counterpart (hostCheck.ts `clientUrl`). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * One open session. It is idle when none of its HTTP exchanges is open: no request awaiting its
 * answer (a POST's JSON or SSE response still streaming) and no GET stream held open. A client that
 * vanished without DELETE (the SDK's close() aborts its requests and sends none) is idle.
 */
interface Live {
  readonly session: GatewaySession;
  /** The view it was opened on: its id is unknown at any other path. */
  readonly view: string | undefined;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** What waits unread for it in its open responses (backlog.ts). */
  readonly backlog: UnreadBacklog;
  /** When its last request arrived (ms since epoch): the least recent idle one is evicted first. */
  lastSeen: number;
  /** HTTP responses of this session not yet closed. */
  open: number;
}

/** Starts listening; resolves once bound. Rejects if the port cannot be bound. */
export async function serveHttp(options: HttpOptions): Promise<HttpFront> {
  const live = new Map<string, Live>();
  const peers = new PeerBacklogs();
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(headersTimeout, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  const server = createServer(
    // Node checks the two timeouts every `connectionsCheckingInterval` (30 s by default): often enough that they hold.
    { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) },
    (req, res) => {
      handle(req, res, options, live, peers).catch((error: Error) => {
        options.logger.error(`http: ${error.stack ?? error.message}`);
        if (!res.headersSent) reply(res, 500, -32603, 'Internal error');
      });
    },
  );
  limitPerPeer(server, options.maxConnectionsPerPeer ?? MAX_CONNECTIONS_PER_PEER, options.logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const sweep = setInterval(() => closeIdle(live, options.idleMs ?? DEFAULT_IDLE_MS), Math.min(60_000, options.idleMs ?? DEFAULT_IDLE_MS));
  sweep.unref();
  return {
    url: clientUrl(address.address, address.port),
    close: async () => {
      clearInterval(sweep);
      await Promise.all([...live.values()].map((l) => l.transport.close().catch(() => undefined)));
      live.clear();
      await closeServer(server);
    },
  };
}

/**
 * Caps the connections open at once from one peer address at `max`: the next is answered 503 (raw,
 * before any request is read) and closed, with one warning per peer while it is over.
 */
function limitPerPeer(server: HttpServer, max: number, logger: Logger): void {
  const open = new Map<string, number>();
  const warned = new Set<string>();
  server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? '';
    const count = open.get(peer) ?? 0;
    if (count >= max) {
      if (!warned.has(peer)) logger.warn(`http: ${peer} holds ${max} connections, the most one address may; further ones are refused (503) until it closes some`);
      warned.add(peer);
      socket.on('error', () => undefined);
      socket.end(TOO_MANY_CONNECTIONS);
      socket.destroySoon();
      return;
    }
    open.set(peer, count + 1);
    socket.once('close', () => {
      const left = (open.get(peer) ?? 1) - 1;
      if (left > 0) open.set(peer, left);
      else open.delete(peer);
      if (left < max) warned.delete(peer);
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, options: HttpOptions, live: Map<string, Live>, peers: PeerBacklogs): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const route = mcpRoute(url.pathname);
  if (!route) {
    const refused = options.dashboard ? originRefusal(req, options.host) : undefined;
    if (refused) return reply(res, refused.status, -32000, refused.message);
    if (options.dashboard && (await options.dashboard(req, res, url))) return;
    return reply(res, 404, -32000, 'Not found: the MCP endpoint is /mcp, or /mcp/VIEW for a view of the config');
  }
  const refusal = checkRequest(req, options);
  if (refusal) {
    // RFC 6750 §3: a 401 names the scheme the client must use.
    if (refusal.status === 401) res.setHeader('www-authenticate', 'Bearer realm="toolshelf"');
    return reply(res, refusal.status, -32000, refusal.message);
  }
  const { view } = route;
  // Past the Host, Origin and token checks: the view names are told only to who may use them.
  if (view !== undefined) {
    const known = options.views?.() ?? [];
    if (!known.includes(view)) return reply(res, 404, -32000, `Not found: ${unknownViewText(view, known)}`);
  }
  const sessionId = header(req, 'mcp-session-id');
  let body: unknown;
  if (req.method === 'POST') {
    const read = await readJson(req);
    if ('error' in read) return reply(res, read.status, read.code, read.error);
    // The request's own id when it can be read (JSON-RPC 2.0 §5).
    if (!isJsonRpc(read.value)) return reply(res, 400, -32600, `Invalid Request: ${invalidReason(read.value)}`, readableId(read.value));
    body = read.value;
    if (options.modern && (await options.modern(req, res, body, view, connectionBacklog(req, peers, options.logger)))) return;
  }
  if (sessionId) {
    const found = live.get(sessionId);
    if (!found || found.view !== view) return reply(res, 404, -32001, 'Session not found');
    found.lastSeen = Date.now();
    found.open += 1;
    found.backlog.track(res);
    // Idle time counts from the end of its last exchange (a GET stream held for an hour included).
    res.once('close', () => {
      found.open -= 1;
      found.lastSeen = Date.now();
    });
    return forward(found.transport, req, res, body, found.backlog);
  }
  if (req.method !== 'POST' || !isInitialize(body)) return reply(res, 400, -32000, 'Bad Request: no valid session id; send initialize first');
  const maxSessions = options.maxSessions ?? MAX_SESSIONS;
  if (live.size >= maxSessions && !evictIdle(live, options.logger)) {
    return reply(res, 503, -32000, `Too many sessions (${maxSessions}), each with a request or stream open; retry later or close one with DELETE /mcp`);
  }
  await startSession(req, res, body, options, live, view, peers);
}

/**
 * The view an MCP path names: `/mcp` the whole shelf (view undefined), `/mcp/NAME` view NAME
 * (percent-decoded); undefined for any other path.
 */
export function mcpRoute(pathname: string): { readonly view: string | undefined } | undefined {
  if (pathname === '/mcp') return { view: undefined };
  const match = /^\/mcp\/([^/]+)$/.exec(pathname);
  if (!match) return undefined;
  try {
    return { view: decodeURIComponent(match[1]!) };
  } catch {
    return undefined;
  }
}

/**
 * Closes the least recently used idle session (see {@link Live}) to make room at the cap; its id
 * then gets 404. Returns false when every session is busy. Source: docs/http.md.
 */
function evictIdle(live: Map<string, Live>, logger: Logger): boolean {
  let oldest: [string, Live] | undefined;
  for (const entry of live) if (entry[1].open === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
  if (!oldest) return false;
  const [id, victim] = oldest;
  live.delete(id);
  logger.debug(`http: session cap reached; closed the least recently used idle session ${id}`);
  void victim.transport.close().catch(() => undefined);
  return true;
}

async function startSession(req: IncomingMessage, res: ServerResponse, body: unknown, options: HttpOptions, live: Map<string, Live>, view: string | undefined, peers: PeerBacklogs): Promise<void> {
  const id = randomUUID();
  const session = options.createSession(id, view);
  const backlog = new UnreadBacklog(HTTP_UNREAD_LIMITS, peerOf(req), peers, (reason) => options.logger.warn(`http: session ${id}: ${reason}`));
  backlog.track(res);
  const transport = new BoundedHttpTransport(
    {
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void live.set(id, { session, view, transport, backlog, lastSeen: Date.now(), open: 0 }),
    },
    backlog,
  );
  transport.onclose = () => {
    live.delete(id);
    options.onSessionClosed(id);
    void session.close().catch(() => undefined);
  };
  await session.connect(transport);
  await forward(transport, req, res, body, backlog);
  // A refused initialize (e.g. batched with other messages) leaves no session: end this one now.
  if (transport.sessionId === undefined) await transport.close();
}

/** The backlog of each connection, for 2026-07-28 requests (they have no session). */
const connectionBacklogs = new WeakMap<Socket, UnreadBacklog>();

/** What waits unread on `req`'s connection (backlog.ts), counted under its peer address in `peers`. */
function connectionBacklog(req: IncomingMessage, peers: PeerBacklogs, logger: Logger): UnreadBacklog {
  let backlog = connectionBacklogs.get(req.socket);
  if (!backlog) {
    const peer = peerOf(req);
    const port = req.socket.remotePort ?? 0;
    backlog = new UnreadBacklog(HTTP_UNREAD_LIMITS, peer, peers, (reason) => logger.warn(`http: connection ${peer}:${port}: ${reason}`));
    connectionBacklogs.set(req.socket, backlog);
  }
  return backlog;
}

/** The peer address of `req`'s connection ('' when the socket has already closed). */
function peerOf(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? '';
}

/**
 * The SDK's Streamable HTTP transport for one legacy session, bounded as the stdio front is: a
 * request to the client (sampling, elicitation) that its backlog refuses ({@link UnreadBacklog.answer})
 * is refused to the upstream; notifications and answers are judged as they are written out
 * ({@link unreadFilter} in {@link forward}), so a client that reads none of what it is sent cannot grow
 * the process past about {@link HTTP_UNREAD_LIMITS} (docs/robustness.md).
 */
class BoundedHttpTransport extends WebStandardStreamableHTTPServerTransport {
  constructor(
    options: WebStandardStreamableHTTPServerTransportOptions,
    private readonly backlog: UnreadBacklog,
  ) {
    super(options);
  }

  override send(message: JSONRPCMessage, options?: Parameters<WebStandardStreamableHTTPServerTransport['send']>[1]): Promise<void> {
    if (!('id' in message && 'method' in message) || this.backlog.clear()) return super.send(message, options);
    const verdict = this.backlog.answer(() => JSON.stringify(message).length);
    return verdict.kind === 'refuse' ? Promise.reject(new Error(verdict.reason)) : super.send(message, options);
  }
}

/** Hands one HTTP exchange to the SDK transport and streams its answer back, bounded by the session's `backlog`. */
async function forward(transport: WebStandardStreamableHTTPServerTransport, req: IncomingMessage, res: ServerResponse, body: unknown, backlog: UnreadBacklog): Promise<void> {
  const response = await transport.handleRequest(webRequest(req, res), body === undefined ? {} : { parsedBody: body });
  await sendWebResponse(response, res, undefined, unreadFilter(backlog));
}

/** True for one JSON-RPC 2.0 message or a non-empty array of them (JSON-RPC 2.0 §4, §6). */
function isJsonRpc(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.length > 0 && messages.every((m) => JSONRPCMessageSchema.safeParse(m).success);
}

function isInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

/** Host and Origin as {@link originRefusal} checks them, then the bearer token when one is set. */
function checkRequest(req: IncomingMessage, options: HttpOptions): { status: number; message: string } | undefined {
  const refused = originRefusal(req, options.host);
  if (refused) return refused;
  if (options.token !== undefined && !tokenMatches(header(req, 'authorization'), options.token)) {
    return { status: 401, message: 'Unauthorized: missing or wrong bearer token' };
  }
  return undefined;
}

/**
 * Why a request's Host or Origin is refused for a front bound to `boundHost`, or undefined when both
 * are allowed: Host must name a loopback address or the bound host (for a wildcard bind, this
 * machine's addresses or host name, read per request as interfaces come and go); a browser's Origin
 * must name one of the same (DNS rebinding; MCP spec, Transports › Streamable HTTP, security warning).
 */
export function originRefusal(req: IncomingMessage, boundHost: string): { status: number; message: string } | undefined {
  const allowed = allowedHostnames(boundHost, isWildcard(boundHost) ? networkInterfaces() : {}, machineName());
  const host = header(req, 'host');
  if (!host || !allowed.has(hostOfHeader(host) ?? '')) return { status: 403, message: `Forbidden: Host "${host ?? ''}" is not allowed` };
  const origin = header(req, 'origin');
  if (origin) {
    let originHost: string;
    try {
      originHost = new URL(origin).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
    } catch {
      return { status: 403, message: 'Forbidden: malformed Origin' };
    }
    if (!allowed.has(originHost)) return { status: 403, message: `Forbidden: Origin "${origin}" is not allowed` };
  }
  return undefined;
}

/** Constant-time comparison of `Bearer <token>` (hashes first so lengths never leak). */
function tokenMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1] ?? '';
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b) && given.length > 0;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads a POST body of at most {@link MAX_BODY_BYTES} and parses it as JSON. A declared
 * Content-Length over the limit is refused before reading, a chunked body once past it; the rest is
 * drained (not read into memory) so the client can finish sending and read the 413.
 */
async function readJson(req: IncomingMessage): Promise<{ value: unknown } | { status: number; code: number; error: string }> {
  const tooLarge = { status: 413, code: -32600, error: `Request body over ${MAX_BODY_BYTES} bytes` };
  if (Number(header(req, 'content-length') ?? 0) > MAX_BODY_BYTES) return tooLarge;
  const text = await readLimited(req, MAX_BODY_BYTES);
  if (text === undefined) return tooLarge;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { status: 400, code: -32700, error: 'Parse error: body is not JSON' };
  }
}

/** The body as UTF-8, or undefined once it passes `maxBytes` (later chunks are discarded). */
function readLimited(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData).resume();
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

/**
 * Sends a JSON-RPC error, with id null unless the request's id was read (JSON-RPC 2.0 §5). node:http
 * discards any unread body after it.
 */
function reply(res: ServerResponse, status: number, code: number, message: string, id: ReadableId = null): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(errorResponse(id, code, message)));
}

/**
 * Closes the sessions idle (see {@link Live}) for longer than `idleMs`. One whose client holds an
 * exchange open is not idle: an SDK client holds its GET stream from initialize on, and closing its
 * session after 30 quiet minutes left it with 404 on every later call, as it does not initialize
 * again.
 */
function closeIdle(live: Map<string, Live>, idleMs: number): void {
  const cutoff = Date.now() - idleMs;
  for (const [id, l] of live) {
    if (l.open === 0 && l.lastSeen < cutoff) {
      live.delete(id);
      void l.transport.close().catch(() => undefined);
    }
  }
}

function closeServer(server: HttpServer): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
