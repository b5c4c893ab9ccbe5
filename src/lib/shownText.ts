/**
 * The text a client shows or hands its model in an upstream's answers and requests, with one
 * function applied to it: `tools/call` results (their content's text, and every string and key of
 * their `structuredContent` and `_meta`), `resources/read`, `prompts/get` and `completion/complete`
 * answers (upstream/connection.ts cleans them and masks the upstream's credentials) and sampling
 * messages (relayedRequests.ts). Binary content and every other field pass as they are; what is left
 * unchanged is the same object. Pure. Source: docs/security.md, "Results".
 */
import { isPlainObject } from './plainObject.js';

/**
 * `result` (a `tools/call` result) with `show` applied to the text of each content item
 * ({@link shownBlock}), and to every string value of its `structuredContent` and `_meta` at any
 * depth, their object keys given to `showKey` ({@link shownValue}). The same object when `show`
 * changed none. @throws RangeError for a `structuredContent` or `_meta` nested too deeply to walk.
 */
export function shownResult(result: Record<string, unknown>, show: (text: string) => string, showKey: (key: string) => string = show): Record<string, unknown> {
  const content = shownList(result.content, (item) => shownBlock(item, show));
  const structured = shownValue(result.structuredContent, show, showKey);
  const meta = shownValue(result._meta, show, showKey);
  if (content === result.content && structured === result.structuredContent && meta === result._meta) return result;
  return { ...result, content, ...(structured !== undefined ? { structuredContent: structured } : {}), ...(meta !== undefined ? { _meta: meta } : {}) };
}

/**
 * `value` (JSON) with `show` applied to every string in it and `showKey` to every object key, at any
 * depth; numbers, booleans and null as they are. Two keys that come out the same keep the first
 * (a later one would overwrite it unseen). The same value, and the same nested objects, where nothing
 * changed, so a clean `structuredContent` keeps its exact bytes. @throws RangeError when nested too
 * deeply for the stack.
 */
export function shownValue(value: unknown, show: (text: string) => string, showKey: (key: string) => string = show): unknown {
  if (typeof value === 'string') return show(value);
  if (Array.isArray(value)) return shownList(value, (item) => shownValue(item, show, showKey));
  if (!isPlainObject(value)) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const shownKey = showKey(key);
    if (Object.hasOwn(out, shownKey)) {
      changed = true;
      continue;
    }
    const next = shownValue(item, show, showKey);
    changed ||= next !== item || shownKey !== key;
    // defineProperty: a `__proto__` key from JSON stays a plain own property.
    Object.defineProperty(out, shownKey, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}

/**
 * The text a client shows or hands a model in the answer to `method`, with `show` applied: a
 * `resources/read` content's `text`, a `prompts/get` message's content ({@link shownBlock}), a
 * `completion/complete` value. Any other answer, and one `show` left alone, is the same object.
 */
export function shownAnswer(method: string, result: Record<string, unknown>, show: (text: string) => string): Record<string, unknown> {
  if (method === 'resources/read') {
    const contents = shownList(result.contents, (item) => shownText(item, show));
    return contents === result.contents ? result : { ...result, contents };
  }
  if (method === 'prompts/get') {
    const messages = shownList(result.messages, (message) => {
      if (!isPlainObject(message)) return message;
      const content = shownBlock(message.content, show);
      return content === message.content ? message : { ...message, content };
    });
    return messages === result.messages ? result : { ...result, messages };
  }
  if (method === 'completion/complete' && isPlainObject(result.completion)) {
    const completion = result.completion;
    const values = shownList(completion.values, (value) => (typeof value === 'string' ? show(value) : value));
    return values === completion.values ? result : { ...result, completion: { ...completion, values } };
  }
  return result;
}

/** A content block (MCP `ContentBlock`) with `show` applied to a text item's `text` or an embedded resource's `text`; the same block when unchanged. */
export function shownBlock(item: unknown, show: (text: string) => string): unknown {
  if (!isPlainObject(item)) return item;
  if (item.type === 'text') return shownText(item, show);
  if (item.type === 'resource' && isPlainObject(item.resource)) {
    const resource = shownText(item.resource, show);
    return resource === item.resource ? item : { ...item, resource };
  }
  return item;
}

/** `item` with `show` applied to its `text` when that is a string; the same object when unchanged. */
function shownText(item: unknown, show: (text: string) => string): unknown {
  if (!isPlainObject(item) || typeof item.text !== 'string') return item;
  const text = show(item.text);
  return text === item.text ? item : { ...item, text };
}

/** `list` mapped by `each` when it is an array; the same array when every item came back the same. */
export function shownList(list: unknown, each: (item: unknown) => unknown): unknown {
  if (!Array.isArray(list)) return list;
  const shown = list.map(each);
  return shown.every((item, index) => item === list[index]) ? list : shown;
}
