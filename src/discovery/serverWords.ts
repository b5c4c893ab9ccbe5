/**
 * Which words of a query name one upstream by a word of its server key, so the per-server cap
 * (diversify.ts) lets that upstream's tools through: "a quick start for Ant Design" names
 * `Ant-Design-Components`, "a page built with shadcn/ui" names `shadcn-ui-server`. Pure: a function
 * of the searchable tools, computed once per catalogue.
 *
 * Only the server key counts (the user's own name for the upstream in `mcpServers`), never a name the
 * upstream declares, so a flooding upstream cannot choose words that lift its own cap. A key word
 * names its server only when it is specific to that server in the catalogue: at least three
 * characters (two for CJK), not a stop word nor a word every MCP key carries (`mcp`, `server`, `tool`,
 * `data`, `file`…), in no other server's key, and used by no other server's tools (their names,
 * descriptions and configured keywords). So `search` in `duckduckgo-search` names nothing when any
 * other server searches, and an everyday query lifts no cap. Source: docs/search.md ("Ranking");
 * docs/security.md ("Ranking under flooding").
 */
import type { CatalogEntry } from '../catalog/types.js';
import { isStopWord, splitWords } from './tokenize.js';

/**
 * Words server keys are made of that say nothing about which upstream it is (the protocol, the
 * kind of program, the commonest kinds of resource): they never name a server on their own.
 */
const GENERIC_KEY_WORDS: ReadonlySet<string> = new Set([
  'mcp',
  'server',
  'servers',
  'service',
  'tool',
  'tools',
  'api',
  'data',
  'file',
  'files',
  'simple',
  'free',
  'model',
  'context',
  'protocol',
]);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Whether a word could name a server at all: long enough, not a stop word, not generic. */
function distinctive(word: string): boolean {
  return word.length >= (CJK.test(word) ? 2 : 3) && !isStopWord(word) && !GENERIC_KEY_WORDS.has(word);
}

/**
 * The key words that name one server each: lower-cased word (as `splitWords` gives it) → server
 * key.
 */
export function serverKeyWords(entries: readonly CatalogEntry[]): Map<string, string> {
  const keysOf = new Map<string, Set<string>>();
  for (const server of new Set(entries.map((entry) => entry.server))) {
    for (const word of new Set(splitWords(server))) {
      if (!distinctive(word)) continue;
      const owners = keysOf.get(word) ?? new Set<string>();
      owners.add(server);
      keysOf.set(word, owners);
    }
  }
  // Which servers' tools use each candidate word.
  const usedBy = new Map<string, Set<string>>();
  for (const entry of entries) {
    const description = typeof entry.tool.description === 'string' ? entry.tool.description : '';
    for (const word of splitWords(`${entry.upstreamName} ${description} ${entry.keywords.join(' ')}`)) {
      if (!keysOf.has(word)) continue;
      const users = usedBy.get(word) ?? new Set<string>();
      users.add(entry.server);
      usedBy.set(word, users);
    }
  }
  const words = new Map<string, string>();
  for (const [word, owners] of keysOf) {
    if (owners.size !== 1) continue;
    const server = [...owners][0]!;
    const users = usedBy.get(word);
    if (users !== undefined && [...users].some((user) => user !== server)) continue;
    words.set(word, server);
  }
  return words;
}

/** The servers `query` names by one of their key words ({@link serverKeyWords}). */
export function serversNamedByKeyWords(query: string, words: ReadonlyMap<string, string>): Set<string> {
  const found = new Set<string>();
  if (words.size === 0) return found;
  for (const word of splitWords(query)) {
    const server = words.get(word);
    if (server !== undefined) found.add(server);
  }
  return found;
}
