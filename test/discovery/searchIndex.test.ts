import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { summarise } from '../../src/discovery/metrics.js';
import { buildPlainBm25 } from '../../src/discovery/plainBm25.js';
import { parseQueries, parseTools, toCatalogEntry } from '../../src/discovery/retrievalSet.js';
import { buildSearchIndex, propertyText } from '../../src/discovery/searchIndex.js';
import { entry, SHARED_ABSENT, SKIP_MESSAGE, sharedCatalogue, sharedData } from './helpers.js';

const files = [
  entry('files', 'read_text_file', 'Read the complete contents of a file from the file system as text.', {
    type: 'object',
    properties: { path: { type: 'string', description: 'Path of the file' } },
    required: ['path'],
  }),
  entry('files', 'list_directory', 'Get a detailed listing of all files and directories in a specified path.'),
  entry('files', 'move_file', 'Move or rename files and directories.'),
  entry('memory', 'create_entities', 'Create multiple new entities in the knowledge graph.'),
  entry('browser', 'takeScreenshot', 'Capture an image of the current page.'),
  entry('tax', 'submit', 'Submit a form.', { type: 'object', properties: { kind: { enum: ['self_register', 'tax_filing'] } } }, ['irs']),
];

describe('search index', () => {
  it('finds a tool by the words of its split name', () => {
    const index = buildSearchIndex(files);
    expect(index.search('take screenshot', 3)[0]?.name).toBe('browser__takeScreenshot');
    expect(index.search('rename a file', 3)[0]?.name).toBe('files__move_file');
  });

  it('an exact qualified or upstream name returns that tool first', () => {
    const index = buildSearchIndex(files);
    expect(index.search('files__list_directory', 5)[0]?.name).toBe('files__list_directory');
    expect(index.search('  `move_file` ', 5)[0]?.name).toBe('files__move_file');
    expect(index.search('MEMORY__CREATE_ENTITIES', 1).map((hit) => hit.name)).toEqual(['memory__create_entities']);
    expect(index.exactMatches('read_text_file')).toEqual(['files__read_text_file']);
  });

  it('a query made of exactly a tool name\'s words puts that tool first, in any spelling', () => {
    const index = buildSearchIndex([
      entry('files', 'read_multiple_files', 'Read the contents of multiple files. Reading files one by one is slower; each file is read.'),
      entry('files', 'read_file', 'Read a file.'),
      entry('browser', 'takeScreenshot', 'Capture an image of the current page.'),
    ]);
    for (const query of ['read file', 'Read a file', 'read-file', 'readFile']) {
      expect(index.search(query, 2)[0]?.name, query).toBe('files__read_file');
    }
    expect(index.search('take a screenshot', 1)[0]?.name).toBe('browser__takeScreenshot');
    expect(index.exactMatches('read file')).toEqual([]);
  });

  it('finds a tool by synonyms of its name words: the model\'s words, not the author\'s', () => {
    const index = buildSearchIndex([
      entry('files', 'write_file', 'Write text to a path.'),
      entry('files', 'create_directory', 'Create a directory.'),
      entry('files', 'read_text_file', 'Read text from a path.'),
      entry('gh', 'delete_issue', 'Delete an issue.'),
      entry('gh', 'list_issues', 'List issues.'),
    ]);
    expect(index.search('save some text', 1)[0]?.name).toBe('files__write_file');
    expect(index.search('make a new folder', 1)[0]?.name).toBe('files__create_directory');
    expect(index.search('remove an issue', 1)[0]?.name).toBe('gh__delete_issue');
  });

  it('searches parameter names, enum-free descriptions, server keys and keywords', () => {
    const index = buildSearchIndex(files);
    expect(index.search('irs', 1)[0]?.name).toBe('tax__submit');
    expect(index.search('knowledge graph', 1)[0]?.name).toBe('memory__create_entities');
    expect(index.search('memory', 1)[0]?.name).toBe('memory__create_entities');
  });

  it('respects the limit; an empty or unmatched query returns nothing', () => {
    const index = buildSearchIndex(files);
    expect(index.search('file', 2)).toHaveLength(2);
    expect(index.search('file', 0)).toEqual([]);
    expect(index.search('', 5)).toEqual([]);
    expect(index.search('zzzz qqqq', 5)).toEqual([]);
  });

  it('a field boost of 0 leaves that field out of the search', () => {
    const index = buildSearchIndex(files, { boosts: { keywords: 0 } });
    expect(index.search('irs', 5)).toEqual([]);
  });

  it('a keyword phrase the query holds puts its tool first as an exact match, stop words and all; not with the keywords field off', () => {
    const shelf = [entry('mem', 'read_graph', 'Read the entire knowledge graph.', { type: 'object' }, ['what do you know']), entry('mem', 'search_nodes', 'Search for nodes: what the graph holds.')];
    expect(buildSearchIndex(shelf).rank('So, what do you know?', 5)).toMatchObject({ exact: 1, hits: [{ name: 'mem__read_graph' }] });
    expect(buildSearchIndex(shelf).rank('what do you knowledge', 5).exact).toBe(0);
    expect(buildSearchIndex(shelf, { boosts: { keywords: 0 } }).rank('what do you know', 5)).toMatchObject({ exact: 0, hits: [] });
  });

  it('a one-word keyword in a script with combining marks stays one word, not an exact phrase ("फ़ाइल" was split at its marks)', () => {
    const shelf = [entry('f', 'read_file', 'Read a file.', { type: 'object' }, ['फ़ाइल', 'पढ़ो फ़ाइल']), entry('f', 'write_file', 'Write a file.')];
    const index = buildSearchIndex(shelf);
    expect(index.rank('फ़ाइल खोलो', 5)).toMatchObject({ exact: 0, hits: [{ name: 'f__read_file' }] });
    expect(index.rank('कृपया पढ़ो फ़ाइल', 5)).toMatchObject({ exact: 1, hits: [{ name: 'f__read_file' }] });
  });

  it('a phrase two tools share names both, in the order the query holds phrases; punctuation and case do not matter', () => {
    const shelf = [
      entry('a', 'one', 'First.', { type: 'object' }, ['Send E-Mail']),
      entry('b', 'two', 'Second.', { type: 'object' }, ['send e-mail', 'look it up']),
      entry('c', 'three', 'Third.', { type: 'object' }, ['look it up']),
    ];
    const index = buildSearchIndex(shelf);
    expect(index.rank('please look it up, then send e.mail', 5)).toMatchObject({ exact: 3, hits: [{ name: 'b__two' }, { name: 'c__three' }, { name: 'a__one' }] });
    expect(index.rank('look it', 5).exact).toBe(0);
    expect(index.rank('b__two', 5).hits[0]?.name).toBe('b__two');
  });

  it('tolerates garbage input schemas', () => {
    const odd = [
      entry('x', 'a', 'Alpha tool.', { type: 'object', properties: null } as never),
      entry('x', 'b', 'Beta tool.', { type: 'object', properties: ['p'] } as never),
      entry('x', 'c', 'Gamma tool.', { type: 'object', properties: { q: 7, r: { description: 42 } } } as never),
    ];
    expect(propertyText(odd[2]!.tool.inputSchema)).toBe('q r');
    expect(buildSearchIndex(odd).search('gamma', 3)[0]?.name).toBe('x__c');
  });

  it('searches a non-English catalogue (CJK bigrams, Cyrillic, accents)', () => {
    const index = buildSearchIndex([
      entry('bing', 'bing_search', '使用必应搜索指定的关键词，并返回搜索结果列表'),
      entry('bing', 'fetch_webpage', '根据提供的ID获取对应网页的内容'),
      entry('rail', 'get_tickets', '查询12306余票信息'),
      entry('ru', 'pogoda', 'Прогноз погоды для города'),
      entry('fr', 'meteo', 'Prévisions météo pour une ville'),
    ]);
    expect(index.search('搜索关键词', 1)[0]?.name).toBe('bing__bing_search');
    expect(index.search('获取网页内容', 1)[0]?.name).toBe('bing__fetch_webpage');
    expect(index.search('余票', 1)[0]?.name).toBe('rail__get_tickets');
    expect(index.search('погоды', 1)[0]?.name).toBe('ru__pogoda');
    expect(index.search('météo', 1)[0]?.name).toBe('fr__meteo');
  });
});

describe.skipIf(SHARED_ABSENT)(`search index on shared catalogues (${SKIP_MESSAGE})`, () => {
  it('exact names come first in a real 500-tool catalogue', () => {
    const entries = sharedCatalogue('livemcpbench-all', 'live');
    const index = buildSearchIndex(entries);
    for (const target of entries.filter((_, i) => i % 50 === 0)) {
      expect(index.search(target.qualifiedName, 5)[0]?.name).toBe(target.qualifiedName);
    }
  });

  it.each(['livemcpbench', 'metatool'])('beats plain BM25 on Recall@5 and nDCG@10 on %s', (set) => {
    const tools = parseTools(readFileSync(sharedData(`retrieval/${set}/tools.jsonl`)!, 'utf8')).items;
    const queries = parseQueries(readFileSync(sharedData(`retrieval/${set}/queries.jsonl`)!, 'utf8')).items
      .filter((query) => query.subset === undefined || query.subset === 'single');
    const index = buildSearchIndex(tools.map(toCatalogEntry));
    const plain = buildPlainBm25(tools, propertyText);
    const ours = summarise(queries, [5], (query) => index.search(query, 10).map((hit) => hit.name));
    const base = summarise(queries, [5], (query) => plain(query, 10));
    expect(ours.recall[5]! - base.recall[5]!).toBeGreaterThan(0.05);
    expect(ours.ndcg10 - base.ndcg10).toBeGreaterThan(0.05);
  });
});
