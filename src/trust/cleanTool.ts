/**
 * A tool declaration as it may be shown: every string in it cleaned ({@link cleanText}) but its name,
 * which routes calls and is restricted by naming instead (`catalog/naming.ts`). Pure. Why the
 * canonical schema used for admission is kept apart is in `docs/security.md` ("Clean text and fenced
 * instructions").
 */
import type { JsonObject, UpstreamTool } from '../catalog/types.js';
import { addRemoved, cleanText, noneRemoved, type RemovedCounts } from './clean.js';

/** A cleaned declaration and what cleaning removed from it. */
export interface CleanedTool {
  /** `tool` itself (the same object) when nothing needed cleaning; else a copy. */
  readonly tool: UpstreamTool;
  readonly removed: RemovedCounts;
}

const memo = new WeakMap<UpstreamTool, CleanedTool>();

/**
 * `tool` with each string value and object key cleaned, at any depth (description, title, every
 * schema's descriptions, titles, property names and enum values, annotations, unknown fields); `name`
 * as declared. Parts that need no cleaning stay the same objects, so a clean declaration keeps its
 * exact bytes on the wire. Two keys of one object that clean to the same text keep the first.
 * Memoised per declaration object: the catalogue is rebuilt often from the same listings.
 */
export function cleanTool(tool: UpstreamTool): CleanedTool {
  const known = memo.get(tool);
  if (known) return known;
  const removed = noneRemoved();
  const result: CleanedTool = { tool: cleanValue(tool, removed, true) as UpstreamTool, removed };
  memo.set(tool, result);
  return result;
}

/**
 * `value` cleaned, counting into `removed`: the same value when nothing changed. `top` keeps the tool's
 * `name`. Values keep their lines (a description's paragraphs, an enum value as declared); keys are one line.
 */
function cleanValue(value: unknown, removed: RemovedCounts, top = false): unknown {
  if (typeof value === 'string') {
    const cleaned = cleanText(value);
    addRemoved(removed, cleaned.removed);
    return cleaned.text;
  }
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const next = cleanValue(item, removed);
      changed ||= next !== item;
      return next;
    });
    return changed ? items : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  let changed = false;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value as JsonObject)) {
    const cleanKey = cleanText(key, { lines: false });
    addRemoved(removed, cleanKey.removed);
    if (Object.hasOwn(out, cleanKey.text)) {
      changed = true;
      continue;
    }
    const next = top && key === 'name' ? item : cleanValue(item, removed);
    changed ||= next !== item || cleanKey.text !== key;
    // defineProperty: a `__proto__` key from JSON stays a plain own property.
    Object.defineProperty(out, cleanKey.text, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}
