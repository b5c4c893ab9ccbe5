/**
 * Which names the HTTP front answers to in `Host` and `Origin`, the URL it tells a client to use, and
 * what it says at start about serving beyond loopback. Pure: the machine's interfaces and host name
 * are passed in (`os.networkInterfaces()`, `os.hostname()`). Source: docs/http.md; MCP spec, Transports ›
 * Streamable HTTP (security warning: validate Origin, bind to localhost).
 */
import type { NetworkInterfaceInfo } from 'node:os';

/** The machine's interfaces as `os.networkInterfaces()` gives them. */
export type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

/** Names every front answers to: a client on this machine may use any of them. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'] as const;

/** A host given without its IPv6 brackets and trailing dot, lower-cased (RFC 4343). */
function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

/** True for a bind address that listens on every interface: `0.0.0.0` or `::`. */
export function isWildcard(host: string): boolean {
  const name = bare(host);
  return name === '0.0.0.0' || name === '::';
}

/** True for a host only this machine can reach: `localhost`, 127.0.0.0/8, `::1` (IPv4-mapped included). */
export function isLoopback(host: string): boolean {
  const name = bare(host).replace(/^::ffff:/, '');
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * Host names (lower-case, no brackets) a request's `Host` and a browser's `Origin` may name when the
 * front is bound to `bound`: the loopback names, plus the bound host itself, or, for a wildcard bind,
 * every address of `interfaces` and the machine's `machineName`, since clients on other machines
 * reach it through those. Any other name is refused, so a DNS-rebinding page (whose name resolves to
 * this machine) still gets 403.
 */
export function allowedHostnames(bound: string, interfaces: Interfaces, machineName: string): Set<string> {
  const names = new Set<string>(LOOPBACK_NAMES);
  if (!isWildcard(bound)) return names.add(bare(bound));
  for (const address of Object.values(interfaces).flat()) if (address) names.add(bare(address.address));
  if (machineName) names.add(bare(machineName));
  return names;
}

/**
 * The host name of a `Host` header (RFC 9110 §7.2: `host [":" port]`, an IPv6 address in brackets),
 * lower-cased, without brackets and trailing dot (RFC 4343); undefined when the header is not of
 * that form. `[::1]evil.com` read as `::1` and was served.
 */
export function hostOfHeader(header: string): string | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]/@]+))(?::\d*)?$/.exec(header);
  if (!match) return undefined;
  return bare(match[1] ?? match[2]!);
}

/** `address` as the host part of a URL: IPv6 in brackets. */
function urlHost(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/**
 * The URL a client uses for a front listening at `address`:`port` (ports as bound, 0 resolved). A
 * wildcard address is no address to connect to, so its loopback counterpart is given
 * (`0.0.0.0` → `127.0.0.1`, `::` → `[::1]`).
 */
export function clientUrl(address: string, port: number): string {
  const host = !isWildcard(address) ? address : bare(address) === '::' ? '::1' : '127.0.0.1';
  return `http://${urlHost(host)}:${port}/mcp`;
}

/**
 * The start-up lines about reach for a front bound to `bound` on `port`: for a wildcard bind, an info
 * line with the URLs other machines use (this machine's non-internal addresses); for any bind beyond
 * loopback without a token (`tokenSet` false), a warning that anyone who can reach it can call every
 * upstream. Link-local IPv6 addresses are left out: they need a zone a URL rarely carries.
 */
export function reachLines(bound: string, port: number, tokenSet: boolean, interfaces: Interfaces): { info: string[]; warn: string[] } {
  const info: string[] = [];
  const warn: string[] = [];
  if (isWildcard(bound)) {
    const v4Only = bare(bound) === '0.0.0.0';
    const remote = Object.values(interfaces)
      .flat()
      .filter((a): a is NetworkInterfaceInfo => !!a && !a.internal && (a.family === 'IPv4' || (!v4Only && !/^fe80:/i.test(a.address))))
      .map((a) => `http://${urlHost(a.address)}:${port}/mcp`);
    info.push(`listening on every interface (${bare(bound)}): other machines use ${remote.length > 0 ? remote.join(' or ') : "this machine's address"} (Host: this machine's addresses or host name)`);
  }
  if (!isLoopback(bound) && !tokenSet) {
    warn.push(
      `serving ${bare(bound)}:${port} beyond loopback with no token: anyone who can reach that address can call every upstream's tools. Set TOOLSHELF_TOKEN (or --token) to require "Authorization: Bearer <token>"`,
    );
  }
  return { info, warn };
}
