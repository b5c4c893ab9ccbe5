/**
 * Test helper: the local authorization server and protected MCP server of
 * test/fixtures/servers/oauthServer.mjs, started as a child on a free port, with its admin endpoints
 * (log, revoke, expire…) for assertions. The caller kills `child` when done.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fixture } from './gateway.js';

/** A running authorization server. */
export interface AuthServer {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:PORT`; the MCP endpoint is `${base}/mcp`. */
  readonly base: string;
  admin(path: string): Promise<AdminLog>;
}

/** What the server's `/admin/log` reports. */
export interface AdminLog {
  tokenRequests: { grant_type: string; client_id: string; resource: string | null; outcome?: string }[];
  clients: string[];
  issued: string[];
  unauthorized: number;
}

/** Starts the server with `env` over the test's environment; resolves once it listens. */
export async function startAuthServer(env: Record<string, string> = {}): Promise<AuthServer> {
  const child = spawn(process.execPath, [fixture('oauthServer.mjs')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`auth server did not start: ${output}`)), 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve((clearTimeout(timer), match[1]!));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return { child, base, admin: async (path) => (await fetch(`${base}/admin/${path}`)).json() as Promise<AdminLog> };
}
