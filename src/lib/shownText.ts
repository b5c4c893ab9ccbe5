/**
 * An upstream's answers and requests as a client shows them or hands them to its model, with one
 * function applied to every string and another to every object key, at any depth, of the WHOLE
 * answer: `tools/call` results, `resources/read`, `prompts/get`, `completion/complete` and the
 * prompt, resource and template lists (upstream/connection.ts cleans them and masks the upstream's
 * credentials), log data, and sampling requests (relayedRequests.ts). What passes as it is, is named
 * here by where it stands: the base64 `data` of an image or audio block and the `blob` of a resource
 * (binary payloads), and in lists the prompt `name`, resource `uri` and `uriTemplate` and the
 * `nextCursor` (they route: the gateway sends them back upstream). Numbers, booleans and null pass;
 * what is left unchanged is the same object. Pure. Source: docs/security.md, "Results".
 */
import { isPlainObject } from './plainObject.js';

/** What is applied to a string: cleaning and masking (upstream/connection.ts). */
type Show = (text: string) => string;

/** How one field of an object is shown instead of by the generic walk (see {@link shownFields}). */
type Own = Readonly<Record<string, (item: unknown) => unknown>>;

/**
 * `result` (a `tools/call` result) with every string shown by `show` and every object key by
 * `showKey`, at any depth: its content blocks whole ({@link shownBlock}: text, `_meta`, annotations,
 * a resource link's every field), `structuredContent`, `_meta` and any other field; only binary
 * payloads pass. The same object when `show` changed nothing. @throws RangeError for a result nested
 * too deeply to walk.
 */
export function shownResult(result: Record<string, unknown>, show: Show, showKey: Show = show): Record<string, unknown> {
  return shownFields(result, show, showKey, { content: (content) => shownBlocks(content, show, showKey) });
}

/**
 * `value` (JSON) with `show` applied to every string in it and `showKey` to every object key, at any
 * depth; numbers, booleans and null as they are. Two keys that come out the same keep the first
 * (a later one would overwrite it unseen). The same value, and the same nested objects, where nothing
 * changed, so a clean `structuredContent` keeps its exact bytes. @throws RangeError when nested too
 * deeply for the stack.
 */
export function shownValue(value: unknown, show: Show, showKey: Show = show): unknown {
  if (typeof value === 'string') return show(value);
  if (Array.isArray(value)) return shownList(value, (item) => shownValue(item, show, showKey));
  if (!isPlainObject(value)) return value;
  return shownFields(value, show, showKey, NONE);
}

/**
 * The answer to `method` from an upstream with every string and key shown as in {@link shownValue},
 * but for binary payloads (a `resources/read` content's `blob`, a `prompts/get` message's image,
 * audio or resource payload) and, in `prompts/list`, `resources/list` and `resources/templates/list`,
 * the fields that route (prompt `name`, `uri`, `uriTemplate`, `nextCursor`). Any other method's
 * answer (`completion/complete`…) is walked whole. The same object when nothing changed.
 * @throws RangeError for an answer nested too deeply to walk.
 */
export function shownAnswer(method: string, result: Record<string, unknown>, show: Show, showKey: Show = show): Record<string, unknown> {
  const listed = (field: string, routing: string): Record<string, unknown> =>
    shownFields(result, show, showKey, {
      [field]: (list) => shownEach(list, show, showKey, (item) => (isPlainObject(item) ? shownFields(item, show, showKey, { [routing]: asIs }) : shownValue(item, show, showKey))),
      nextCursor: asIs,
    });
  switch (method) {
    case 'tools/call':
      return shownResult(result, show, showKey);
    case 'resources/read':
      return shownFields(result, show, showKey, { contents: (contents) => shownEach(contents, show, showKey, (item) => shownContents(item, show, showKey)) });
    case 'prompts/get':
      return shownFields(result, show, showKey, { messages: (messages) => shownMessages(messages, show, showKey) });
    case 'prompts/list':
      return listed('prompts', 'name');
    case 'resources/list':
      return listed('resources', 'uri');
    case 'resources/templates/list':
      return listed('resourceTemplates', 'uriTemplate');
    default:
      return shownValue(result, show, showKey) as Record<string, unknown>;
  }
}

/**
 * `messages` (a `prompts/get` answer's, a sampling request's: each a `role` and a `content` of one
 * block or a list) with every string and key shown, each content {@link shownBlock}. The same list
 * when unchanged. @throws RangeError when nested too deeply to walk.
 */
export function shownMessages(messages: unknown, show: Show, showKey: Show = show): unknown {
  return shownEach(messages, show, showKey, (message) => (isPlainObject(message) ? shownFields(message, show, showKey, { content: (content) => shownBlocks(content, show, showKey) }) : shownValue(message, show, showKey)));
}

/**
 * A content block (MCP `ContentBlock`, or a sampling message's `tool_use` / `tool_result`) with every
 * string and key shown, but an image's or audio's `data` and an embedded resource's `blob`; a
 * `tool_result`'s `content` is shown block by block. The same block when unchanged.
 */
export function shownBlock(item: unknown, show: Show, showKey: Show = show): unknown {
  if (!isPlainObject(item)) return shownValue(item, show, showKey);
  if (item.type === 'image' || item.type === 'audio') return shownFields(item, show, showKey, { data: (data) => binary(data, show, showKey) });
  if (item.type === 'resource') return shownFields(item, show, showKey, { resource: (resource) => shownContents(resource, show, showKey) });
  if (item.type === 'tool_result') return shownFields(item, show, showKey, { content: (content) => shownBlocks(content, show, showKey) });
  return shownFields(item, show, showKey, NONE);
}

/** One content block or a list of them (a sampling message's `content` may be either), each {@link shownBlock}. */
function shownBlocks(content: unknown, show: Show, showKey: Show): unknown {
  return Array.isArray(content) ? shownList(content, (block) => shownBlock(block, show, showKey)) : shownBlock(content, show, showKey);
}

/** `list`'s items each shown by `each`; anything but an array in its place is walked as any value. */
function shownEach(list: unknown, show: Show, showKey: Show, each: (item: unknown) => unknown): unknown {
  return Array.isArray(list) ? shownList(list, each) : shownValue(list, show, showKey);
}

/** A resource's contents (`resources/read`, an embedded resource) shown whole but its `blob`. */
function shownContents(item: unknown, show: Show, showKey: Show): unknown {
  return isPlainObject(item) ? shownFields(item, show, showKey, { blob: (blob) => binary(blob, show, showKey) }) : shownValue(item, show, showKey);
}

/** A binary payload (base64) as it is; anything else in its place is walked as any value. */
function binary(value: unknown, show: Show, showKey: Show): unknown {
  return typeof value === 'string' ? value : shownValue(value, show, showKey);
}

const asIs = (item: unknown): unknown => item;
const NONE: Own = {};

/**
 * `value` with each key shown by `showKey` and each field's value by `own[key]` when the (given) key
 * has one, else by {@link shownValue}. Two keys that come out the same keep the first. The same
 * object when nothing changed.
 */
function shownFields(value: Record<string, unknown>, show: Show, showKey: Show, own: Own): Record<string, unknown> {
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const shownKey = showKey(key);
    if (Object.hasOwn(out, shownKey)) {
      changed = true;
      continue;
    }
    const next = Object.hasOwn(own, key) ? own[key]!(item) : shownValue(item, show, showKey);
    changed ||= next !== item || shownKey !== key;
    // defineProperty: a `__proto__` key from JSON stays a plain own property.
    Object.defineProperty(out, shownKey, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}

/** `list` mapped by `each` when it is an array; the same array when every item came back the same. */
export function shownList(list: unknown, each: (item: unknown) => unknown): unknown {
  if (!Array.isArray(list)) return list;
  const shown = list.map(each);
  return shown.every((item, index) => item === list[index]) ? list : shown;
}
