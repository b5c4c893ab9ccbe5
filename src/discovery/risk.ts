/**
 * What a tool's annotations say about its risk, read with MCP's defaults, for the manifest's marks,
 * tool_search's answers and the bridge's confirmation policy. Pure. Annotations are hints from an
 * upstream, not guarantees (MCP spec 2025-11-25, Server › Tools › Tool annotations: clients must
 * treat them as untrusted); docs/security.md "Risky calls" says what each reading is used for.
 *
 * MCP's defaults when a hint is absent: `readOnlyHint` false, `destructiveHint` true (meaningful
 * only when not read-only), `idempotentHint` false, `openWorldHint` true.
 */

/** The four behaviour hints of MCP's ToolAnnotations. */
export const HINT_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

export type HintKey = (typeof HINT_KEYS)[number];

/** The hints a tool sets (booleans only), in {@link HINT_KEYS} order; empty when it sets none. */
export type Hints = Partial<Record<HintKey, boolean>>;

/** The boolean hints of `tool.annotations`; anything else there (title, malformed values) is left out. */
export function hintsOf(tool: object): Hints {
  const annotations = (tool as { readonly annotations?: unknown }).annotations;
  if (annotations === null || typeof annotations !== 'object' || Array.isArray(annotations)) return {};
  const hints: Hints = {};
  for (const key of HINT_KEYS) {
    const value = (annotations as Record<string, unknown>)[key];
    if (typeof value === 'boolean') hints[key] = value;
  }
  return hints;
}

/** True when the tool sets `readOnlyHint` or `destructiveHint`: it said something about what it changes. */
export function declaresEffects(hints: Hints): boolean {
  return hints.readOnlyHint !== undefined || hints.destructiveHint !== undefined;
}

/** Read-only: `readOnlyHint: true`. */
export function isReadOnly(hints: Hints): boolean {
  return hints.readOnlyHint === true;
}

/** Destructive by MCP's defaults: not read-only, and `destructiveHint` not false (an unannotated tool is). */
export function isDestructive(hints: Hints): boolean {
  return !isReadOnly(hints) && hints.destructiveHint !== false;
}

/** Open-world by MCP's defaults: `openWorldHint` not false (an unannotated tool is). */
export function isOpenWorld(hints: Hints): boolean {
  return hints.openWorldHint !== false;
}

/** The manifest's mark of a read-only tool. */
export const READ_ONLY_TAG = '(read-only)';
/** The manifest's mark of a tool that declares itself destructive. */
export const DESTRUCTIVE_TAG = '(destructive)';

/**
 * The manifest's mark for a tool: {@link READ_ONLY_TAG}, {@link DESTRUCTIVE_TAG} when it declares
 * effects that are destructive by MCP's defaults (`readOnlyHint: false` alone counts), or `''`. A
 * tool that declares no effects is not marked: a mark on every line of an unannotated server would
 * say nothing and cost tokens; the confirmation policy still treats it as MCP's defaults say
 * (docs/security.md "Risky calls").
 */
export function riskTag(hints: Hints): string {
  if (isReadOnly(hints)) return READ_ONLY_TAG;
  return declaresEffects(hints) && isDestructive(hints) ? DESTRUCTIVE_TAG : '';
}

/**
 * The hints a tool sets, as the few words tool_search's answers carry on every match (compact: an
 * answer is read on every search): what a call changes, `read-only`, else `destructive` / `additive`
 * when it declares effects; then `open-world` when it declares it reaches outside its server. `''`
 * when it declares none of these. Left out: `idempotent` (a retry policy's concern, not the choice of
 * a tool) and `closed-world` (the confined reading); MCP's defaults stay unsaid (docs/security.md
 * "Risky calls", sizes in docs/search.md "Answers").
 */
export function hintWords(hints: Hints): string {
  const words: string[] = [];
  if (isReadOnly(hints)) words.push('read-only');
  else if (declaresEffects(hints)) words.push(isDestructive(hints) ? 'destructive' : 'additive');
  if (hints.openWorldHint === true) words.push('open-world');
  return words.join(', ');
}
