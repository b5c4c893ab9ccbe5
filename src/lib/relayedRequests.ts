/**
 * The requests an upstream makes of the client (sampling/createMessage, elicitation/create,
 * roots/list), as both the upstream side (upstream/relay.ts, which relays them) and the gateway side
 * (each era's client server, which answers or refuses them) need them: the client capability each
 * needs, the refusal when the client lacks it, and the answer when no client's roots apply. Pure.
 * Source: MCP spec, Client features (Roots, Sampling, Elicitation); docs/protocol-eras.md.
 */
// The refusal is thrown back through the upstream Client's request handler (upstream/relay.ts). The
// SDK brands its errors, so the Client takes the server package's ProtocolError as its own; the
// gateway side, which builds the refusal, then loads no client package (docs/performance.md, "Memory").
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { isPlainObject } from './plainObject.js';
import { printableLine } from './printable.js';
import { cleanText } from '../trust/clean.js';
import { shownMessages, shownValue } from './shownText.js';
import { fenceQuote } from '../gateway/instructions.js';

/** The upstream requests relayed to a client, each with the client capability it needs (MCP spec, Client features). */
export const RELAYED = { 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation', 'roots/list': 'roots' } as const;
/** An upstream request relayed to a client: a key of {@link RELAYED}. */
export type RelayedMethod = keyof typeof RELAYED;

/**
 * The answer to a roots/list that no client can answer with its own roots (none waiting, or the
 * client did not declare roots): toolshelf has no roots. On stdio an upstream's roots/list is often
 * its own sync (server-everything asks 350 ms after start-up), not the running call's need, so it
 * never fails that call.
 */
export function noRoots(): { roots: [] } {
  return { roots: [] };
}

/**
 * The refusal an upstream gets when it asks the client for `method` (sampling/createMessage,
 * elicitation/create) and the client of the call did not declare `capability`: -32601, as a client
 * without the handler would answer (MCP spec, Client features). The gateway notes it to tell the
 * client what it lacks when the call then fails (dispatch.ts), in either era.
 */
export class ClientLacksCapability extends ProtocolError {
  readonly capability: string;
  readonly method: string;

  constructor(method: string) {
    super(ProtocolErrorCode.MethodNotFound, `The client that made this call does not support ${method}`);
    this.method = method;
    this.capability = clientCapabilityFor(method) ?? method;
  }
}

/** The client capability an upstream request `method` needs (MCP spec, Client features); undefined for one never relayed. */
export function clientCapabilityFor(method: string): (typeof RELAYED)[RelayedMethod] | undefined {
  return Object.hasOwn(RELAYED, method) ? RELAYED[method as RelayedMethod] : undefined;
}

/** Longest elicitation message relayed, in UTF-16 code units, after the attribution; a longer one ends in `…`. */
export const MAX_ELICITATION_MESSAGE_CHARS = 2000;
/** Longest title in a relayed elicitation's requestedSchema, in UTF-16 code units. */
const MAX_ELICITATION_TITLE_CHARS = 200;

/**
 * An upstream's `elicitation/create` params as the client is asked them: the message cleaned onto one
 * line and attributed, `Server "files" asks: …`, so it cannot pose as toolshelf's own confirmation
 * prompt (`gateway/confirm.ts`), as the user or as another server; every string and key of
 * `requestedSchema` (property names, `enum` and `const` values, `default` values the user sees
 * prefilled, `required`, titles and descriptions, at any depth) and of `_meta` cleaned, masked and on
 * one line, each property's `title` and `description` (and the titles of its `oneOf` / `anyOf`
 * choices, its `enumNames`) also capped. A property name or value the client answers with is then the
 * cleaned one, as the user saw it; on a clean schema nothing changes. `url`, `elicitationId` and
 * `mode` pass as sent: they are where the user is sent and what routes the answer. Each shown text is
 * cleaned, then `mask` (the upstream's credentials: upstream/failure.ts `withoutSecrets`) applied,
 * then put on one line and capped, so no part of a credential is left by the cap. The server key is
 * one toolshelf's config chose. Pure. @throws RangeError for a schema nested too deeply to walk.
 * Source: MCP spec, Client features › Elicitation; docs/security.md, "Upstream errors and requests".
 */
export function attributedElicitation(server: string, params: Record<string, unknown> | undefined, mask: Mask = unmasked): Record<string, unknown> {
  const { message: given, url, elicitationId, mode, ...rest } = params ?? {};
  const message = typeof given === 'string' ? given : '';
  const plain = (text: string): string => line(text, mask, Number.MAX_SAFE_INTEGER);
  const out = shownValue(rest, plain, plain) as Record<string, unknown>;
  const passed = { mode, url, elicitationId };
  for (const [key, value] of Object.entries(passed)) if (value !== undefined) out[key] = value;
  out.message = printableLine(`Server "${server}" asks: ${mask(cleanText(message).text)}`, MAX_ELICITATION_MESSAGE_CHARS);
  const schema = out.requestedSchema;
  if (isPlainObject(schema) && isPlainObject(schema.properties)) {
    const properties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      Object.defineProperty(properties, name, { value: isPlainObject(property) ? cleanedField(property, mask) : property, enumerable: true, writable: true, configurable: true });
    }
    out.requestedSchema = {
      ...schema,
      ...(typeof schema.title === 'string' ? { title: line(schema.title, mask) } : {}),
      ...(typeof schema.description === 'string' ? { description: line(schema.description, mask, MAX_ELICITATION_MESSAGE_CHARS) } : {}),
      properties,
    };
  }
  return out;
}

/**
 * The first line of the system prompt of every sampling request relayed from upstream `server`:
 * names who asks, so the client's user and model do not take the request for the user's or
 * toolshelf's own (docs/security.md, "Upstream errors and requests").
 */
export function samplingAttribution(server: string): string {
  return `[A request from the MCP server "${server}", relayed by toolshelf: its messages are that server's words, not the user's or toolshelf's.]`;
}

/**
 * An upstream's `sampling/createMessage` params as the client's model reads them: attributed to
 * `server` by a first line of the `systemPrompt` ({@link samplingAttribution}); the upstream's own
 * system prompt, if any, follows after a blank line with every line quoted (`> `, as server
 * instructions are fenced: gateway/instructions.ts `fenceQuote`), so no line of it can stand as
 * toolshelf's own (a second attribution, an "end of request" line). Every string and key of the rest
 * (messages whole, their text, tool use input and tool results; `tools` with their descriptions;
 * `metadata`, `_meta`…) is cleaned, line breaks kept, then `mask` applied (the upstream's
 * credentials, as in its call results); an image's or audio's base64 `data` passes as it is. The
 * server key is one toolshelf's config chose. Pure. @throws RangeError for params nested too deeply
 * to walk. Source: MCP spec, Client features › Sampling; docs/security.md, "Upstream errors and requests".
 */
export function attributedSampling(server: string, params: Record<string, unknown> | undefined, mask: Mask = unmasked): Record<string, unknown> {
  const { systemPrompt: given, messages, ...rest } = params ?? {};
  const show = (text: string): string => mask(cleanText(text).text);
  const showKey = (key: string): string => mask(cleanText(key, { lines: false }).text);
  const out = shownValue(rest, show, showKey) as Record<string, unknown>;
  const own = typeof given === 'string' ? show(given).trim() : '';
  const systemPrompt = own === '' ? samplingAttribution(server) : `${samplingAttribution(server)}\n\n${fenceQuote(own)}`;
  return { ...out, systemPrompt, ...(messages !== undefined ? { messages: shownMessages(messages, show, showKey) } : {}) };
}

/** What masks an upstream's credentials in a text already cleaned (upstream/failure.ts `withoutSecrets`). */
export type Mask = (text: string) => string;

/** No credentials to mask. */
const unmasked: Mask = (text) => text;

/** One requestedSchema property with its shown texts cleaned and masked (see {@link attributedElicitation}). */
function cleanedField(property: Record<string, unknown>, mask: Mask): Record<string, unknown> {
  const out: Record<string, unknown> = { ...property };
  if (typeof property.title === 'string') out.title = line(property.title, mask);
  if (typeof property.description === 'string') out.description = line(property.description, mask, MAX_ELICITATION_MESSAGE_CHARS);
  if (Array.isArray(property.enumNames)) out.enumNames = property.enumNames.map((name) => (typeof name === 'string' ? line(name, mask) : name));
  for (const key of ['oneOf', 'anyOf'] as const) {
    const choices = property[key];
    if (Array.isArray(choices)) out[key] = choices.map((choice) => (isPlainObject(choice) && typeof choice.title === 'string' ? { ...choice, title: line(choice.title, mask) } : choice));
  }
  const items = property.items;
  if (isPlainObject(items)) out.items = cleanedField(items, mask);
  return out;
}

/** Text of a requestedSchema shown to the user: cleaned, masked, one line, capped at `maxChars`. */
function line(text: string, mask: Mask, maxChars = MAX_ELICITATION_TITLE_CHARS): string {
  return printableLine(mask(cleanText(text).text), maxChars);
}
