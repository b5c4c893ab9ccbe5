/**
 * Views (docs/views.md): the part of a built catalogue one client sees. A view is a second exposure
 * layer over the catalogue the config's rules built: it keeps the tools of its servers that its
 * `include` patterns match and its `exclude` patterns do not, and may change their exposure. Names
 * stay as the catalogue gave them, so a tool is called by the same name in every view. Pure.
 */
import type { ExposureSetting, ViewConfig } from '../config/types.js';
import { snapshot, type Catalogue, type ExposureCounts } from './build.js';
import { globMatches, isGlob } from './exposure.js';
import type { CatalogEntry, Exposure } from './types.js';

/**
 * The names a view pattern is matched against for `entry`: `SERVER<separator>TOOL` (server key and
 * upstream tool name, whatever the server's `prefix` or a clipped name) and the qualified name.
 */
export function viewNames(entry: Pick<CatalogEntry, 'server' | 'upstreamName' | 'qualifiedName'>, separator: string): readonly string[] {
  const full = `${entry.server}${separator}${entry.upstreamName}`;
  return full === entry.qualifiedName ? [full] : [full, entry.qualifiedName];
}

/** True when pattern (exact name or glob) matches one of `names`. */
function patternMatches(pattern: string, names: readonly string[]): boolean {
  return names.some((name) => (isGlob(pattern) ? globMatches(pattern, name) : pattern === name));
}

/**
 * The exposure `entry` has in `view`, or `'hidden'` when the view leaves it out: outside the view's
 * `servers`, matching no `include` pattern, or matching an `exclude` pattern. Otherwise the view's
 * `exposure` rule decides (an exact name over the longest glob, equal lengths the lexically first, as
 * for `tools` rules in catalog/exposure.ts), else the entry keeps the catalogue's exposure.
 */
export function viewExposure(entry: CatalogEntry, view: ViewConfig, separator: string): Exposure {
  if (view.servers && !view.servers.includes(entry.server)) return 'hidden';
  const names = viewNames(entry, separator);
  if (view.include && !view.include.some((p) => patternMatches(p, names))) return 'hidden';
  if (view.exclude?.some((p) => patternMatches(p, names))) return 'hidden';
  const rules = Object.entries(view.exposure ?? {}).filter(([p]) => patternMatches(p, names));
  const exact = rules.find(([p]) => !isGlob(p));
  const glob = rules.filter(([p]) => isGlob(p)).sort(([a], [b]) => b.length - a.length || (a < b ? -1 : 1))[0];
  const chosen: ExposureSetting | undefined = exact?.[1] ?? glob?.[1];
  return chosen ?? entry.exposure;
}

/**
 * The catalogue `view` sees of `base`: entries it keeps, with their exposure in the view; counts per
 * server cover the view's servers only (a tool the view leaves out counts as hidden, so a server with
 * none left passes on no instructions); no collisions or dropped tools (the base catalogue reports those).
 */
export function viewCatalogue(base: Catalogue, view: ViewConfig, separator: string): Catalogue {
  const counts = new Map<string, ExposureCounts>();
  for (const [server, tally] of base.counts) {
    if (!view.servers || view.servers.includes(server)) counts.set(server, { direct: 0, deferred: 0, hidden: tally.hidden });
  }
  const entries: CatalogEntry[] = [];
  for (const entry of base.entries) {
    const exposure = viewExposure(entry, view, separator);
    const tally = counts.get(entry.server);
    if (tally) tally[exposure] += 1;
    if (exposure !== 'hidden') entries.push(exposure === entry.exposure ? entry : { ...entry, exposure });
  }
  // Removed-character counts are warned once for the base shelf; a view keeps those of its own servers.
  const cleaned = new Map([...base.cleaned].filter(([server]) => counts.has(server)));
  // A held tool of a server the view keeps still answers that it is held (docs/security.md).
  const held = base.held.filter((h) => counts.has(h.server));
  return snapshot(entries, counts, { collisions: [], given: base.names }, [], cleaned, held);
}

/**
 * The patterns of `view` (include, exclude, exposure keys) that match no tool of `base`, each with
 * where it stands (`include`, `exclude`, `exposure`): a pattern that matches nothing is most often a
 * typo and does nothing. Empty when `base` has no entries (nothing listed yet to check against).
 */
export function unmatchedViewPatterns(base: Catalogue, view: ViewConfig, separator: string): { readonly field: 'include' | 'exclude' | 'exposure'; readonly pattern: string }[] {
  if (base.entries.length === 0) return [];
  const names = base.entries.map((e) => viewNames(e, separator));
  const unmatched = (pattern: string): boolean => !names.some((n) => patternMatches(pattern, n));
  return [
    ...(view.include ?? []).filter(unmatched).map((pattern) => ({ field: 'include' as const, pattern })),
    ...(view.exclude ?? []).filter(unmatched).map((pattern) => ({ field: 'exclude' as const, pattern })),
    ...Object.keys(view.exposure ?? {}).filter(unmatched).map((pattern) => ({ field: 'exposure' as const, pattern })),
  ];
}
