/**
 * A tool's pin: a hash over the fields that decide what a model reads and what a call sends (name,
 * description, title, inputSchema, outputSchema, annotations), kept with the text it was taken from so
 * a review can show what changed. Pure. Source: docs/security.md, "Pins, quarantine and review"
 * (mcp-scan's tool pinning; the MCP spec's advice that clients treat tool annotations as untrusted).
 */
import type { UpstreamTool } from '../catalog/types.js';
import { stableHash, stableJson } from '../lib/hash.js';

/** The fields of a tool a pin covers, in the order a review lists them. */
export const PINNED_FIELDS = ['name', 'description', 'title', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** One of {@link PINNED_FIELDS}. */
export type PinnedField = (typeof PINNED_FIELDS)[number];

/** The pinned fields of a tool as it was listed; absent fields stay absent. */
export type PinnedText = { readonly [F in PinnedField]?: unknown };

/** A tool's pin: the hash of its {@link PinnedText} and the text itself. */
export interface ToolPin {
  /** {@link stableHash} of `text`: 32 hex digits. */
  readonly hash: string;
  readonly text: PinnedText;
  /** True once a person approved this version (`toolshelf approve`): the scanner's findings no longer hold it. */
  readonly reviewed?: boolean;
}

/** The pinned fields of `tool`, each as listed (unknown fields and `_meta` are not pinned). */
export function pinnedText(tool: UpstreamTool): PinnedText {
  const text: Record<string, unknown> = {};
  for (const field of PINNED_FIELDS) if (tool[field] !== undefined) text[field] = tool[field];
  return text;
}

/** The pin of `tool` as listed now (never reviewed). */
export function pinOf(tool: UpstreamTool): ToolPin {
  const text = pinnedText(tool);
  return { hash: stableHash(text), text };
}

/** One field that differs between two versions of a tool: its text before and after (absent: the field was not there). */
export interface FieldChange {
  readonly field: PinnedField;
  /** Stable JSON of the old value (strings as they are); undefined when the field was absent. */
  readonly before?: string;
  readonly after?: string;
}

/**
 * The fields that differ between the pinned text `before` and `after`, in {@link PINNED_FIELDS} order;
 * empty when the two hash the same. Strings are given as they are, other values as stable JSON
 * (keys sorted), so a reordered schema is no change. Pure.
 */
export function diffPins(before: PinnedText, after: PinnedText): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of PINNED_FIELDS) {
    const old = asText(before[field]);
    const now = asText(after[field]);
    if (old === now) continue;
    changes.push({ field, ...(old !== undefined ? { before: old } : {}), ...(now !== undefined ? { after: now } : {}) });
  }
  return changes;
}

function asText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : stableJson(value);
}
