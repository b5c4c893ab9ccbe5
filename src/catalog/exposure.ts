/**
 * Exposure rules: which of direct / deferred / hidden a tool gets, and its trigger words.
 * Pure. Source: docs/configuration.md (most specific rule wins: exact tool name > longest glob > server > global).
 */
import type { ExposureSetting, ToolRule } from '../config/types.js';
import type { Exposure } from './types.js';

/** What the rules decide for one tool. */
export interface ToolDecision {
  readonly exposure: Exposure;
  /** Union of keywords of every matching rule, sorted shorter first then alphabetically (docs/tools.md). */
  readonly keywords: readonly string[];
}

/** True when `pattern` contains a glob character. */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

/** Matches `name` against a glob where `*` is any run of characters and `?` one character. */
export function globMatches(pattern: string, name: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(name);
}

/**
 * Decides the exposure of upstream tool `name` given its server's `tools` rules, the server's own
 * exposure and the global default. Among globs the longest pattern wins; equal lengths fall back to
 * the lexically first pattern so the outcome never depends on key order.
 */
export function decideExposure(
  name: string,
  rules: Readonly<Record<string, ToolRule>> | undefined,
  serverExposure: ExposureSetting | undefined,
  globalExposure: ExposureSetting,
): ToolDecision {
  const matching = Object.entries(rules ?? {}).filter(([pattern]) =>
    isGlob(pattern) ? globMatches(pattern, name) : pattern === name,
  );
  const exact = matching.find(([pattern]) => pattern === name && !isGlob(pattern));
  const globs = matching
    .filter(([pattern, rule]) => isGlob(pattern) && rule.exposure !== undefined)
    .sort(([a], [b]) => b.length - a.length || (a < b ? -1 : 1));
  const exposure = exact?.[1].exposure ?? globs[0]?.[1].exposure ?? serverExposure ?? globalExposure;
  return { exposure, keywords: sortKeywords(matching.flatMap(([, rule]) => rule.keywords ?? [])) };
}

/**
 * The patterns of a server's `tools` rules (exact names and globs) that match none of `names`, its
 * upstream tools as listed, in the rules' order. A rule that matches nothing is most often a typo,
 * and does nothing: a mistyped `"hidden"` rule leaves the tool it meant visible. Pure.
 */
export function unmatchedRules(rules: Readonly<Record<string, ToolRule>> | undefined, names: readonly string[]): string[] {
  return Object.keys(rules ?? {}).filter((pattern) => !names.some((name) => (isGlob(pattern) ? globMatches(pattern, name) : pattern === name)));
}

/** Deduplicates and sorts trigger words: shorter first, then alphabetical (docs/tools.md). */
export function sortKeywords(words: readonly string[]): string[] {
  return [...new Set(words.map((w) => w.trim()).filter((w) => w.length > 0))].sort(
    (a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0),
  );
}
