/**
 * Reads a client config file's text into its document and its server entries, or says why it cannot
 * (docs/init.md: a malformed or unknown file is reported and left untouched). VS Code's `mcp.json`
 * is JSON with comments and trailing commas (JSONC); Codex's `config.toml` is TOML v1.0 (read with
 * smol-toml). Pure.
 */
import { parse as parseToml } from 'smol-toml';
import { isPlainObject } from '../lib/plainObject.js';
import type { ClientFile } from './clients.js';

/** A client file read: the whole document, and its entries by server name (undefined key: none yet). */
export type ParsedClientFile =
  | { readonly ok: true; readonly doc: Record<string, unknown>; readonly servers: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly why: string };

/** The key under which `format` keeps its entries. */
export function serversKey(format: ClientFile['format']): string {
  return format === 'servers' ? 'servers' : format === 'codex-toml' ? 'mcp_servers' : 'mcpServers';
}

/**
 * JSONC text as JSON: `//` and `/* *\/` comments outside strings removed, and commas before `}` or
 * `]`. Pure; strings (with their escapes) are copied as they are.
 */
export function jsoncToJson(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      i += 1;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, i + 1);
      i += 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += c;
      i += 1;
    }
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

/** Parses `text` as `file`'s format and finds its entries; a file with no entries key has none. */
export function parseClientFile(file: ClientFile, text: string): ParsedClientFile {
  let doc: unknown;
  try {
    doc = file.format === 'codex-toml' ? parseToml(text) : JSON.parse(file.format === 'servers' ? jsoncToJson(text) : text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { ok: false, why: `not valid ${file.format === 'codex-toml' ? 'TOML' : 'JSON'}: ${(error as Error).message.split('\n')[0]}` };
  }
  if (!isPlainObject(doc)) return { ok: false, why: `not a ${file.format === 'codex-toml' ? 'TOML document' : 'JSON object'}` };
  const key = serversKey(file.format);
  const servers = doc[key];
  if (servers === undefined) return { ok: true, doc, servers: {} };
  if (!isPlainObject(servers)) return { ok: false, why: `"${key}" is not an object` };
  return { ok: true, doc, servers };
}
