/**
 * The dashboard's HTTP routes, served beside `/mcp` on the gateway's own port (and by the shared
 * instance on a loopback port for `toolshelf ui`). The caller has already checked Host and Origin as
 * for `/mcp` (DNS rebinding); here every page and API request needs a page session (access.ts), and
 * every state-changing request its CSRF token. Pages carry a Content-Security-Policy that allows only
 * this origin's scripts, so upstream text, which the page renders as text nodes only, cannot run.
 *
 * | route | |
 * |---|---|
 * | `GET /` | the page (gives a session when no login is required) |
 * | `GET /ui/login?code=…` | spends a one-time login code, sets the session cookie, redirects to `/` |
 * | `GET /ui/assets/NAME` | the page's script, styles and the preact/htm modules |
 * | `GET /ui/api/state` | {@link DashboardState} plus this session's CSRF token |
 * | `GET /ui/api/events` | server-sent events: every {@link ActivityItem} as it happens, the recent ones first |
 * | `POST /ui/api/search` | `{query, limit?, view?}` → {@link PlaygroundAnswer} (CSRF) |
 * | `POST /ui/api/sign-in` | `{server}`: begins that upstream's browser sign-in (CSRF) |
 * | `POST /ui/api/approve` | `{server, tools?}`: pins held versions as reviewed (CSRF) |
 * | `POST /ui/api/reject` | `{server, tools?}`: records held versions as rejected; they stay held (CSRF) |
 * | `POST /ui/api/login-code` | with the gateway's bearer token: a one-time login path for `toolshelf ui` |
 *
 * Source: docs/dashboard.md; WHATWG HTML › Server-sent events; W3C CSP Level 3.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../trace/log.js';
import { CSRF_HEADER, sameSecret, type DashboardAccess } from './access.js';
import type { Activity, ActivityItem } from './activity.js';
import type { PlaygroundAnswer } from './playground.js';
import type { DashboardState } from './state.js';

/** The live parts the routes read. */
export interface DashboardSource {
  state(): DashboardState;
  /** Ranks on the whole shelf, or on view `view`'s; undefined when the config has no such view. */
  search(query: string, limit: number, view?: string): Promise<PlaygroundAnswer> | undefined;
  /** Begins the browser sign-in of an upstream that waits for one; false when it does not. */
  signIn(server: string): boolean;
  /**
   * Approves held versions of `server`'s `tools` (all it holds when empty), as `toolshelf approve`
   * does, or with `reject` records them as rejected (they stay held): what was decided, or why
   * nothing was (a pin file that cannot be written included).
   */
  approve(server: string, tools: readonly string[], decision: 'approve' | 'reject'): { readonly approved: readonly string[]; readonly instructions: boolean } | { readonly error: string };
  readonly activity: Activity;
}

/** What {@link dashboardRoutes} needs. */
export interface DashboardOptions {
  readonly source: DashboardSource;
  readonly access: DashboardAccess;
  readonly logger: Logger;
  /** The gateway's bearer token, which may mint login codes over HTTP; absent for the shared instance's page. */
  readonly token?: string;
}

/** Largest API request body, in bytes (a query and a limit). */
export const MAX_API_BODY_BYTES = 64 * 1024;
/** Most event streams open at once; one more is refused with 503. */
export const MAX_EVENT_STREAMS = 16;
/** Bytes an event stream may have waiting unsent before its reader is taken as gone and the stream closed. */
export const MAX_STREAM_BACKLOG_BYTES = 1024 * 1024;

/** Handles a dashboard request; false when `url` is not the dashboard's (the caller answers it). */
export type DashboardHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

/** The import map that lets the page's modules say `preact`, `preact/hooks` and `htm`. */
const IMPORT_MAP = JSON.stringify({ imports: { preact: '/ui/assets/preact.js', 'preact/hooks': '/ui/assets/hooks.js', htm: '/ui/assets/htm.js' } });

/** The page's only inline script is the import map; CSP allows it by its hash and nothing else inline. */
const CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(IMPORT_MAP).digest('base64')}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Every asset by its public name: the page's own files and the two libraries from node_modules. */
const ASSETS: Readonly<Record<string, { readonly path: string; readonly type: string }>> = {
  'app.js': { path: `${PAGE_DIR}app.js`, type: 'text/javascript; charset=utf-8' },
  'style.css': { path: `${PAGE_DIR}style.css`, type: 'text/css; charset=utf-8' },
  'preact.js': { path: fileURLToPath(import.meta.resolve('preact')), type: 'text/javascript; charset=utf-8' },
  'hooks.js': { path: fileURLToPath(import.meta.resolve('preact/hooks')), type: 'text/javascript; charset=utf-8' },
  'htm.js': { path: fileURLToPath(import.meta.resolve('htm')), type: 'text/javascript; charset=utf-8' },
};

/** Builds the handler. Files are read once, at the first request for each. */
export function dashboardRoutes(options: DashboardOptions): DashboardHandler {
  const { access, source } = options;
  const cache = new Map<string, Buffer>();
  const file = (path: string): Buffer => {
    let body = cache.get(path);
    if (!body) cache.set(path, (body = readFileSync(path)));
    return body;
  };
  let streams = 0;

  return async (req, res, url) => {
    const path = url.pathname;
    if (path !== '/' && path !== '/index.html' && !path.startsWith('/ui/')) return false;
    const method = req.method ?? 'GET';
    const session = access.sessionOf(header(req, 'cookie'));

    if (path === '/' || path === '/index.html') {
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(res, 'GET'), true;
      if (session) return sendPage(res, file(`${PAGE_DIR}index.html`)), true;
      if (access.loginRequired) return sendHtml(res, 401, SIGN_IN_PAGE), true;
      return sendPage(res, file(`${PAGE_DIR}index.html`), access.cookieFor(access.openSession())), true;
    }
    if (path === '/ui/login') {
      const fresh = access.redeem(url.searchParams.get('code') ?? '');
      if (!fresh) return sendHtml(res, 403, EXPIRED_PAGE), true;
      res.writeHead(303, { location: '/', 'set-cookie': access.cookieFor(fresh), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      return res.end(), true;
    }
    if (path.startsWith('/ui/assets/')) {
      const asset = ASSETS[path.slice('/ui/assets/'.length)];
      if (!asset) return sendJson(res, 404, { error: 'no such asset' }), true;
      res.writeHead(200, { 'content-type': asset.type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
      return res.end(file(asset.path)), true;
    }
    if (path === '/ui/api/login-code') {
      if (method !== 'POST') return methodNotAllowed(res, 'POST'), true;
      if (!access.loginRequired) return sendJson(res, 200, { path: '/' }), true;
      const given = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1] ?? '';
      if (options.token === undefined || !sameSecret(options.token, given)) {
        res.setHeader('www-authenticate', 'Bearer realm="toolshelf"');
        return sendJson(res, 401, { error: 'a login code needs the gateway token as "Authorization: Bearer TOKEN"' }), true;
      }
      return sendJson(res, 200, { path: `/ui/login?code=${access.mintLoginCode()}` }), true;
    }
    if (!session) return sendJson(res, 401, { error: 'no dashboard session: open the link that `toolshelf ui` prints' }), true;

    if (path === '/ui/api/state') {
      if (method !== 'GET') return methodNotAllowed(res, 'GET'), true;
      return sendJson(res, 200, { ...source.state(), csrf: access.csrfOf(session) }), true;
    }
    if (path === '/ui/api/events') {
      if (method !== 'GET') return methodNotAllowed(res, 'GET'), true;
      if (streams >= MAX_EVENT_STREAMS) return sendJson(res, 503, { error: `at most ${MAX_EVENT_STREAMS} event streams at once` }), true;
      streams += 1;
      res.once('close', () => (streams -= 1));
      streamEvents(res, source.activity, Number(header(req, 'last-event-id') ?? 0));
      return true;
    }
    if (path === '/ui/api/search' || path === '/ui/api/sign-in' || path === '/ui/api/approve' || path === '/ui/api/reject') {
      if (method !== 'POST') return methodNotAllowed(res, 'POST'), true;
      if (!access.csrfMatches(session, header(req, CSRF_HEADER))) return sendJson(res, 403, { error: `missing or wrong ${CSRF_HEADER} header` }), true;
      const body = await readJsonBody(req);
      if (!body.ok) return sendJson(res, body.status, { error: body.error }), true;
      const fields = (typeof body.value === 'object' && body.value !== null ? body.value : {}) as { query?: unknown; limit?: unknown; server?: unknown; view?: unknown; tools?: unknown };
      if (path === '/ui/api/approve' || path === '/ui/api/reject') {
        const tools = fields.tools ?? [];
        if (typeof fields.server !== 'string' || !Array.isArray(tools) || !tools.every((t) => typeof t === 'string')) return sendJson(res, 400, { error: 'give {"server": KEY, "tools": [NAME, …]}' }), true;
        const outcome = source.approve(fields.server, tools as string[], path === '/ui/api/reject' ? 'reject' : 'approve');
        return sendJson(res, 'error' in outcome ? 409 : 200, outcome), true;
      }
      if (path === '/ui/api/sign-in') {
        if (typeof fields.server !== 'string') return sendJson(res, 400, { error: 'server must be a server key' }), true;
        return source.signIn(fields.server) ? sendJson(res, 202, { started: true }) : sendJson(res, 409, { error: `"${fields.server}" is not waiting for a sign-in` }), true;
      }
      const { query, limit, view } = fields;
      if (typeof query !== 'string' || query.trim() === '') return sendJson(res, 400, { error: 'query must be a non-empty string' }), true;
      if (view !== undefined && typeof view !== 'string') return sendJson(res, 400, { error: 'view must be a view name' }), true;
      const answer = source.search(query, typeof limit === 'number' ? limit : 10, view);
      return answer ? sendJson(res, 200, await answer) : sendJson(res, 400, { error: `no view "${view}" in the config` }), true;
    }
    return sendJson(res, 404, { error: 'not found' }), true;
  };
}

/**
 * Sends the kept items newer than `after` (the browser's Last-Event-ID on reconnect), then each new
 * one, until the page goes. A reader that falls {@link MAX_STREAM_BACKLOG_BYTES} behind is dropped: it
 * reconnects with its last id and loses nothing the ring still holds.
 */
function streamEvents(res: ServerResponse, activity: Activity, after: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
  const send = (item: ActivityItem): void => {
    if (res.writableLength > MAX_STREAM_BACKLOG_BYTES) return void res.destroy();
    res.write(`id: ${item.seq}\nevent: activity\ndata: ${JSON.stringify(item)}\n\n`);
  };
  res.write('retry: 2000\n\n');
  for (const item of activity.recent()) if (!(item.seq <= after)) send(item);
  const unsubscribe = activity.subscribe(send);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  keepAlive.unref();
  res.once('close', () => {
    clearInterval(keepAlive);
    unsubscribe();
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The page, its import map put in place of the marker the file holds. */
function sendPage(res: ServerResponse, page: Buffer, cookie?: string): void {
  res.writeHead(200, { ...PAGE_HEADERS, ...(cookie ? { 'set-cookie': cookie } : {}) });
  res.end(page.toString('utf8').replace('<!--importmap-->', `<script type="importmap">${IMPORT_MAP}</script>`));
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, PAGE_HEADERS);
  res.end(html);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(value));
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader('allow', allow);
  sendJson(res, 405, { error: `use ${allow}` });
}

/** Reads a JSON body of at most {@link MAX_API_BODY_BYTES}; the rest of a longer one is discarded. */
function readJsonBody(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; status: number; error: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_API_BODY_BYTES) chunks.push(chunk);
    });
    req.once('error', () => resolve({ ok: false, status: 400, error: 'the request body could not be read' }));
    req.once('end', () => {
      if (size > MAX_API_BODY_BYTES) return resolve({ ok: false, status: 413, error: `body over ${MAX_API_BODY_BYTES} bytes` });
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ ok: false, status: 400, error: 'the body is not JSON' });
      }
    });
  });
}

const SIGN_IN_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>toolshelf: sign in</title></head><body>
<h1>toolshelf dashboard</h1><p>This gateway requires a token. Run <code>toolshelf ui --url URL</code> with <code>TOOLSHELF_TOKEN</code> set: it opens a one-time sign-in link.</p></body></html>`;

const EXPIRED_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>toolshelf: link used or expired</title></head><body>
<h1>toolshelf dashboard</h1><p>This sign-in link was already used or has expired (links last five minutes). Run <code>toolshelf ui</code> again for a new one.</p></body></html>`;
