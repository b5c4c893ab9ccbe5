// The comparison upstream for bench/load.mjs: server-everything's own server factory (the code its
// stdio entry runs) served over Streamable HTTP on 127.0.0.1 with the SDK transport, one server per
// session, the way toolshelf's HTTP front does it (v2's Web Standard transport and toolshelf's
// node:http bridge; server-everything's own v1 server speaks to it through the unchanged Transport
// contract). Its packaged `streamableHttp` entry is not used:
// it binds every interface, logs each request on stdout and keeps every SSE event in memory.
// Prints `listening <url>` on stderr; ends on SIGTERM or when stdin closes.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { createServer } from '@modelcontextprotocol/server-everything/dist/server/index.js';
import { sendWebResponse, webRequest } from '../dist/gateway/fronts/webBridge.js';

const sessions = new Map();

async function handle(req, res) {
  const id = req.headers['mcp-session-id'];
  const known = id ? sessions.get(id) : undefined;
  if (known) return serve(known, req, res);
  if (id) return void res.writeHead(404).end();
  const { server, cleanup } = createServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
  });
  transport.onclose = () => {
    sessions.delete(transport.sessionId);
    cleanup();
  };
  await server.connect(transport);
  await serve(transport, req, res);
}

async function serve(transport, req, res) {
  await sendWebResponse(await transport.handleRequest(webRequest(req, res, true)), res);
}

const http = createHttpServer((req, res) => {
  handle(req, res).catch((error) => {
    process.stderr.write(`direct server: ${error.stack}\n`);
    if (!res.headersSent) res.writeHead(500).end();
  });
});
http.listen(0, '127.0.0.1', () => process.stderr.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`));
const stop = () => {
  http.closeAllConnections();
  http.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('close', stop).resume();
