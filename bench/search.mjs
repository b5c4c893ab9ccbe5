// Search benchmark (issue 4, DESIGN §13): retrieval quality on the shared dev sets (toolshelf's
// index beside plain BM25) and in-process latency of a search, an index rebuild and a manifest
// render at 100, 1,000 and 10,000 tools. Catalogues past the shared ones are renamed copies.
// Run after a build: `npm run bench:search` (or `npx tsc -p tsconfig.json && node bench/search.mjs`).
// Prints markdown tables to stdout.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { evaluate } from '../dist/commands/eval.js';
import { renderManifest } from '../dist/discovery/manifest.js';
import { parseQueries, toCatalogEntry } from '../dist/discovery/retrievalSet.js';
import { buildSearchIndex } from '../dist/discovery/searchIndex.js';

const DATA = fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!existsSync(DATA)) {
  console.error(`bench:search needs the shared evaluation data at ${DATA}`);
  process.exit(1);
}
const read = (relative) => readFileSync(DATA + relative, 'utf8');
const f3 = (n) => n.toFixed(3);

function qualityTable() {
  const sets = [
    ['livemcpbench (all)', 'livemcpbench', undefined],
    ['metatool single', 'metatool', 'single'],
    ['metatool multi', 'metatool', 'multi'],
  ];
  const lines = [
    '| set | queries | ranking | Recall@1 | Recall@5 | Recall@10 | nDCG@10 | MRR@10 |',
    '|---|---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const [label, dir, subset] of sets) {
    const report = evaluate(read(`retrieval/${dir}/tools.jsonl`), read(`retrieval/${dir}/queries.jsonl`), [1, 5, 10], subset);
    for (const [ranking, m] of [['toolshelf', report.toolshelf], ['plain BM25', report.plainBm25]]) {
      lines.push(`| ${label} | ${report.queries} | ${ranking} | ${f3(m.recall[1])} | ${f3(m.recall[5])} | ${f3(m.recall[10])} | ${f3(m.ndcg10)} | ${f3(m.mrr10)} |`);
    }
  }
  return lines;
}

/** Every shared catalogue, then renamed copies (`c<n>x<server>__tool`) until `size` tools. */
function catalogue(size) {
  const files = ['github', 'playwright', 'chrome-devtools', 'linear', 'livemcpbench-all'];
  const base = files.flatMap((file) =>
    JSON.parse(read(`catalogs/${file}.json`)).map((tool) => ({ ...tool, server: file.replace(/[^a-z]/g, '') })),
  );
  const entries = [];
  for (let copy = 0; entries.length < size; copy += 1) {
    for (const tool of base) {
      if (entries.length >= size) break;
      const server = copy === 0 ? tool.server : `c${copy}x${tool.server}`;
      entries.push(toCatalogEntry({ ...tool, name: `${server}__${tool.name}` }));
    }
  }
  return entries;
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

function time(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function latencyTable() {
  const queries = [
    ...parseQueries(read('retrieval/livemcpbench/queries.jsonl')).items,
    ...parseQueries(read('retrieval/metatool/queries.jsonl')).items.slice(0, 200),
  ].map((query) => query.query);
  const lines = [
    '| tools | search p50 ms | search p99 ms | rebuild p50 ms | rebuild p99 ms | manifest p50 ms (level) |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  for (const size of [100, 1000, 10000]) {
    const entries = catalogue(size);
    const rebuildRuns = size >= 10000 ? 5 : 20;
    const rebuild = percentiles(Array.from({ length: rebuildRuns }, () => time(() => buildSearchIndex(entries).search('', 1))));
    const index = buildSearchIndex(entries);
    for (const query of queries.slice(0, 50)) index.search(query, 5);
    const searchRuns = [];
    for (let round = 0; round < 4; round += 1) for (const query of queries) searchRuns.push(time(() => index.search(query, 5)));
    const search = percentiles(searchRuns);
    let level = '';
    const manifest = percentiles(Array.from({ length: 5 }, () => time(() => {
      const rendered = renderManifest(entries, { tokenBudget: 4000 });
      level = rendered.listed < size && rendered.level === 'names' ? `names, ${rendered.listed.toLocaleString('en-US')} listed` : rendered.level;
    })));
    lines.push(`| ${size.toLocaleString('en-US')} | ${f3(search.p50)} | ${f3(search.p99)} | ${f3(rebuild.p50)} | ${f3(rebuild.p99)} | ${f3(manifest.p50)} (${level}) |`);
  }
  return lines;
}

console.log(`## tool_search quality (shared/data/retrieval)\n`);
console.log(qualityTable().join('\n'));
console.log(`\n## tool_search latency (in-process, limit 5, ${process.version}, this machine)\n`);
console.log(latencyTable().join('\n'));
