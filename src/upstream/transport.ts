/**
 * Server entry → SDK client transport: a stdio child in its own process group, or Streamable HTTP /
 * SSE for a remote URL. No retry and no state. Source: DESIGN §11.
 */
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { isRemote, type RemoteServerConfig, type ServerConfig } from '../config/types.js';
import { ChildStdioTransport } from './stdioTransport.js';
import type { GroupRegistry } from './watchdog.js';

/** Makes the transports to try, in order, for one connection attempt to `server`; stderr lines of a child go to `onStderrLine`. */
export type TransportFactory = (server: ServerConfig, onStderrLine: (line: string) => void) => (() => Transport)[];

/**
 * The default {@link TransportFactory}: a stdio child (cwd relative to `baseDir`, its process group
 * registered with `groups`), or {@link remoteTransports}.
 */
export function transportsFor(baseDir: string, groups?: GroupRegistry): TransportFactory {
  return (server, onStderrLine) => (isRemote(server) ? remoteTransports(server) : [() => new ChildStdioTransport(server, baseDir, onStderrLine, groups)]);
}

/** Remote transports to try in order: Streamable HTTP then SSE for `auto` (MCP spec, Transports › Backwards compatibility). */
export function remoteTransports(server: RemoteServerConfig): (() => Transport)[] {
  const url = new URL(server.url);
  const requestInit: RequestInit = { headers: { ...server.headers } };
  const streamable = (): Transport => new StreamableHTTPClientTransport(url, { requestInit });
  const sse = (): Transport => new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: withHeaders(server.headers) } });
  switch (server.transport ?? 'auto') {
    case 'sse':
      return [sse];
    case 'streamable-http':
      return [streamable];
    default:
      return [streamable, sse];
  }
}

/** A fetch that adds `headers` to the SSE GET stream (EventSource sends none of its own). */
function withHeaders(headers: Readonly<Record<string, string>> | undefined): typeof fetch {
  return (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
}
