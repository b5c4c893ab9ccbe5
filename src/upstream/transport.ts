/**
 * Server entry → SDK client transport: a stdio child in its own process group, or Streamable HTTP /
 * SSE for a remote URL. No retry and no state. Source: docs/robustness.md.
 */
import { SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import { isRemote, type RemoteServerConfig, type ServerConfig } from '../config/types.js';
import { ChildStdioTransport } from './stdioTransport.js';
import type { GroupRegistry } from './watchdog.js';

/**
 * Makes the transports to try, in order, for one connection attempt to `server`; stderr lines of a
 * child go to `onStderrLine`; a remote server's requests carry `authProvider`'s tokens.
 */
export type TransportFactory = (server: ServerConfig, onStderrLine: (line: string) => void, authProvider?: OAuthClientProvider) => (() => Transport)[];

/**
 * The default {@link TransportFactory}: a stdio child (cwd relative to `baseDir`, its process group
 * registered with `groups`), or {@link remoteTransports}.
 */
export function transportsFor(baseDir: string, groups?: GroupRegistry): TransportFactory {
  return (server, onStderrLine, authProvider) =>
    isRemote(server) ? remoteTransports(server, authProvider) : [() => new ChildStdioTransport(server, baseDir, onStderrLine, groups)];
}

/** Remote transports to try in order: Streamable HTTP then SSE for `auto` (MCP spec, Transports › Backwards compatibility). */
export function remoteTransports(server: RemoteServerConfig, authProvider?: OAuthClientProvider): (() => Transport)[] {
  const url = new URL(server.url);
  const requestInit: RequestInit = { headers: { ...server.headers } };
  const auth = authProvider ? { authProvider } : {};
  const streamable = (): Transport => new StreamableHTTPClientTransport(url, { requestInit, ...auth });
  const sse = (): Transport => new SSEClientTransport(url, { requestInit, eventSourceInit: { fetch: withHeaders(server.headers) }, ...auth });
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
