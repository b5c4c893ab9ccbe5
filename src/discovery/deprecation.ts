/**
 * Whether a tool is deprecated, from what its upstream declared: the description, `annotations` or
 * `_meta`. Pure and deterministic; ranking (`searchIndex.ts`) puts deprecated tools below their
 * replacements and the manifest tags them. Leaves what "below" means (the penalty) to the index.
 * Source: docs/tools.md (filesystem's `read_file`: "DEPRECATED: Use read_text_file instead").
 */
import type { UpstreamTool } from '../catalog/types.js';

/**
 * The description states deprecation when a sentence starts with "deprecated" (`DEPRECATED: Use X`,
 * `Reads a file. Deprecated, use Y.`, `[Deprecated] …`, `⚠️ Deprecated …`), when it carries a
 * `(deprecated)` tag, or when it says the tool itself "is deprecated". A description that only talks
 * about deprecation ("Check if packages are deprecated", livemcpbench's npm tool) does not count.
 */
const SENTENCE_START = /(?:^|[.!?。]\s+|\n\s*)[^\p{L}\p{N}\n]*deprecated\b/iu;
const TAG = /[([]deprecated[)\]]/i;
const SELF = /\b(?:this|the)\s+(?:tool|function|endpoint|method|command|api|operation|action)\s+(?:is|has been)\s+(?:now\s+)?deprecated\b/i;

/** A `_meta` key that says deprecated: `deprecated` itself or a namespaced `…/deprecated`. */
const META_KEY = /(?:^|[/.])deprecated$/i;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `description` states that the tool is deprecated (see the patterns above). */
export function describesDeprecation(description: string | undefined): boolean {
  if (typeof description !== 'string' || description === '') return false;
  return SENTENCE_START.test(description) || TAG.test(description) || SELF.test(description);
}

/**
 * True when the upstream marks the tool deprecated: its description (`describesDeprecation`), a
 * `title` with a `(deprecated)` tag (filesystem: "Read File (Deprecated)"), `annotations.deprecated` truthy (or an `annotations.title` with a `(deprecated)` tag), or a
 * `_meta` key `deprecated` / `<namespace>/deprecated` that is truthy. Never throws on odd shapes.
 */
export function isDeprecated(tool: UpstreamTool): boolean {
  if (describesDeprecation(tool.description)) return true;
  if (typeof tool.title === 'string' && TAG.test(tool.title)) return true;
  const annotations = tool.annotations;
  if (isObject(annotations)) {
    if (annotations.deprecated === true || (typeof annotations.deprecated === 'string' && annotations.deprecated !== '')) return true;
    if (typeof annotations.title === 'string' && TAG.test(annotations.title)) return true;
  }
  const meta = tool._meta;
  if (isObject(meta)) {
    for (const [key, value] of Object.entries(meta)) if (META_KEY.test(key) && value !== false && value !== null && value !== undefined) return true;
  }
  return false;
}
