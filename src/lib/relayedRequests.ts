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
import { shownBlock, shownList } from './shownText.js';

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
 * prompt (`gateway/confirm.ts`), as the user or as another server; in `requestedSchema`, each property's
 * `title` and `description` (and the titles of its `oneOf` / `anyOf` choices, its `enumNames`) cleaned
 * and capped, on one line. Property names, `enum` and `const` values, `url`, `elicitationId` and the
 * rest pass as sent: they are what the answer carries back or where it goes. Each shown text is
 * cleaned, then `mask` (the upstream's credentials: upstream/failure.ts `withoutSecrets`) applied,
 * then put on one line and capped, so no part of a credential is left by the cap. The server key is
 * one toolshelf's config chose. Pure. Source: MCP spec, Client features › Elicitation;
 * docs/security.md, "Upstream errors and requests".
 */
export function attributedElicitation(server: string, params: Record<string, unknown> | undefined, mask: Mask = unmasked): Record<string, unknown> {
  const given = params ?? {};
  const message = typeof given.message === 'string' ? given.message : '';
  const out: Record<string, unknown> = { ...given, message: printableLine(`Server "${server}" asks: ${mask(cleanText(message).text)}`, MAX_ELICITATION_MESSAGE_CHARS) };
  const schema = given.requestedSchema;
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
 * `server` by a first line of the `systemPrompt` ({@link samplingAttribution}; the upstream's own
 * system prompt, if any, follows after a blank line), and the text cleaned, line breaks kept, then
 * `mask` applied (the upstream's credentials, as in its call results): `systemPrompt` and the text of
 * each message's content (one block or a list). Images, audio, tool use and results, and every other
 * field pass as they are. The server key is one toolshelf's config chose. Pure. Source: MCP spec,
 * Client features › Sampling; docs/security.md, "Upstream errors and requests".
 */
export function attributedSampling(server: string, params: Record<string, unknown> | undefined, mask: Mask = unmasked): Record<string, unknown> {
  const given = params ?? {};
  const show = (text: string): string => mask(cleanText(text).text);
  const messages = shownList(given.messages, (message) => {
    if (!isPlainObject(message)) return message;
    const content = Array.isArray(message.content) ? shownList(message.content, (block) => shownBlock(block, show)) : shownBlock(message.content, show);
    return content === message.content ? message : { ...message, content };
  });
  const own = typeof given.systemPrompt === 'string' ? show(given.systemPrompt) : '';
  const systemPrompt = own === '' ? samplingAttribution(server) : `${samplingAttribution(server)}\n\n${own}`;
  return { ...given, systemPrompt, ...(messages !== undefined ? { messages } : {}) };
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
