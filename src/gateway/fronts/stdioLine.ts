/**
 * Keeps every message toolshelf writes to a stdio client within the line the client reads: the SDK's
 * stdio clients buffer at most 10 MiB (`STDIO_DEFAULT_MAX_BUFFER_SIZE`) and close the connection on
 * a longer line, so one upstream progress or log message over it, passed on during a call, ended the
 * client's session. Tool results are kept under it before this, as an isError
 * the model can act on (session `maxResultBytes`); this is the backstop for every other
 * message. Pure. Source: MCP spec, Transports › stdio; JSON-RPC 2.0 §5.
 */
import { ProtocolErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/server';

/** What to do with a message for a stdio client: send it, send `message` in its place, drop it, or refuse to send it. */
export type LineVerdict =
  | { readonly kind: 'fits' }
  | { readonly kind: 'replace'; readonly message: JSONRPCMessage; readonly reason: string }
  | { readonly kind: 'drop'; readonly reason: string }
  | { readonly kind: 'refuse'; readonly reason: string };

const FITS: LineVerdict = { kind: 'fits' };

const mib = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);

/**
 * How `message`, serialised as `json` (without its newline), goes to a client that reads lines of at
 * most `maxBytes` bytes (newline included): as it is when its line fits; else a response becomes an
 * error response (-32603) under its id, so the request is answered; a notification (progress, a log
 * message) is dropped, as it has no answer; a request (sampling, elicitation) is refused, so it fails
 * at once instead of ending the connection.
 */
export function fitLine(message: JSONRPCMessage, json: string, maxBytes: number): LineVerdict {
  // A UTF-16 unit is at most 3 UTF-8 bytes: the common message is told without counting bytes.
  if ((json.length + 1) * 3 <= maxBytes) return FITS;
  const bytes = Buffer.byteLength(json, 'utf8') + 1;
  if (bytes <= maxBytes) return FITS;
  const what = 'method' in message ? message.method : 'the response';
  const reason = `${what} is ${mib(bytes)} MiB, more than a stdio client reads on one line (${mib(maxBytes)} MiB)`;
  if (!('method' in message)) return { kind: 'replace', message: { jsonrpc: '2.0', id: message.id, error: { code: ProtocolErrorCode.InternalError, message: reason } } as JSONRPCMessage, reason };
  return 'id' in message ? { kind: 'refuse', reason } : { kind: 'drop', reason };
}
