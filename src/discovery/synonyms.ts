/**
 * Synonyms of the words tool names are made of, so a query in the model's words finds a tool
 * named in its author's (`save` → `write_file`, `folder` → `list_directory`, `remove` →
 * `delete_issue`). Owns the word groups and the expansion of one name; the index puts the
 * expansion in its own field (`aliases`, boosted like the name). Pure; groups are fixed data.
 * Source: docs/search.md (fields of the index); measured in `searchIndex.ts` tuning notes.
 */
import { stem, tokenize } from './tokenize.js';

/**
 * Interchangeable words, one group per line: the generic verbs of tool names (CRUD, run, send,
 * stop, copy) and a few computing nouns with the same meaning. Chosen from how MCP tools are
 * commonly named, not from the evaluation queries; domain words (papers, prices, news) are left
 * out on purpose, since a wrong synonym there changes what a tool is for.
 */
const GROUPS: readonly string[] = [
  'create make add',
  'delete remove erase destroy',
  'get fetch retrieve obtain',
  'find search lookup locate seek',
  'list enumerate',
  'update edit modify change alter',
  'run execute exec invoke launch',
  'write save store',
  'read open view load',
  'send post publish',
  'stop kill terminate cancel halt',
  'copy duplicate clone',
  'image picture photo pic',
  'directory folder dir',
  'document doc',
  'repository repo',
  'email mail',
  'screenshot capture snapshot',
];

/** Search term (stemmed, as `tokenize` makes it) → the words of its groups, unstemmed. */
const SYNONYMS: ReadonlyMap<string, readonly string[]> = buildTable(GROUPS);

function buildTable(groups: readonly string[]): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const group of groups) {
    const words = group.split(' ');
    for (const word of words) {
      const term = stem(word);
      table.set(term, [...new Set([...(table.get(term) ?? []), ...words])]);
    }
  }
  return table;
}

/**
 * The synonyms of the words of `name` (any identifier style) as plain words joined by spaces, for
 * the index to tokenize like any text; words whose term the name already has are left out.
 * `write_file` → `save store`; `''` when no word of the name is in a group.
 */
export function nameAliases(name: string): string {
  const own = new Set(tokenize(name));
  const aliases: string[] = [];
  for (const term of own) {
    for (const word of SYNONYMS.get(term) ?? []) {
      if (!own.has(stem(word)) && !aliases.includes(word)) aliases.push(word);
    }
  }
  return aliases.join(' ');
}
