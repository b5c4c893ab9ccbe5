/**
 * What a client is told about view names (docs/views.md): the sentence for a view the config does not
 * have, with the closest name offered. Pure.
 */
import { suggestNames } from '../../discovery/suggest.js';
import { printableLine } from '../../lib/printable.js';

/** Longest view name quoted back, in characters: the name comes from a URL or a flag. */
const MAX_QUOTED_CHARS = 80;

/**
 * `no view "NAME" in the config; did you mean "X"? Its views: a, b` (or `It has no views`), for an
 * unknown view `name` among `known`. The name is made printable and clipped before it is quoted.
 */
export function unknownViewText(name: string, known: readonly string[]): string {
  const [near] = suggestNames(name, known, 1);
  const list = known.length > 0 ? `its views: ${[...known].sort().join(', ')}` : 'it defines no views';
  return `no view "${printableLine(name, MAX_QUOTED_CHARS)}" in the config${near !== undefined ? `; did you mean "${near}"?` : ''} (${list})`;
}
