// Flood benchmark (docs/security.md "Ranking under flooding"): fifty keyword-stuffed tools on one
// server (test/fixtures/flood/floodTools.mjs) beside the bundled server-filesystem, -memory and
// -everything tool lists (test/fixtures/catalogs/bundled.json, with servers.config.json's trigger words), searched with ten everyday queries.
// Prints the flood server's share of the top 5 and how often it is first, with the flooding guard
// (per-server cap and score-down, discovery/diversify.ts) off and on, side by side in one run; then
// Recall@5 / nDCG@10 on the shared retrieval sets (../shared/data/retrieval) with the guard off and on.
// Run: `npm run bench:flood` (builds first). Prints markdown tables to stdout.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildFloodGuard } from '../dist/discovery/diversify.js';
import { rankerCatalogueOf } from '../dist/discovery/hostRanker.js';
import { summarise } from '../dist/discovery/metrics.js';
import { rankTools } from '../dist/discovery/rank.js';
import { parseQueries, parseTools, toCatalogEntry } from '../dist/discovery/retrievalSet.js';
import { buildSearchIndex } from '../dist/discovery/searchIndex.js';
import { floodTools } from '../test/fixtures/flood/floodTools.mjs';

const FLOOD = 'helper';
const QUERIES = [
  'add two numbers',
  'read a file',
  'list a folder',
  'remember a fact',
  'write a file',
  'search for files',
  'echo a message',
  'create a folder',
  'move a file',
  'recall what you know',
];

const bundled = JSON.parse(readFileSync(fileURLToPath(new URL('../test/fixtures/catalogs/bundled.json', import.meta.url)), 'utf8'));
// The bundled config's trigger words ("remember", "recall", …), as a user of servers.config.json has them.
const config = JSON.parse(readFileSync(fileURLToPath(new URL('../servers.config.json', import.meta.url)), 'utf8'));
const keywordsOf = (server, tool) => [...(config.mcpServers[server]?.tools?.[tool]?.keywords ?? [])].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
const entriesOf = (server, tools) =>
  tools.map((tool) => ({ ...toCatalogEntry({ ...tool, name: `${server}__${tool.name}` }), tool: { ...tool }, keywords: keywordsOf(server, tool.name) }));
const entries = [
  ...['files', 'memory', 'everything'].flatMap((server) => entriesOf(server, bundled[server])),
  ...entriesOf(FLOOD, floodTools()),
];

/** A rank context over `list` with the guard on or off, as the shelf builds it. */
function contextOf(list, guarded) {
  return { index: buildSearchIndex(list), mode: 'bm25', catalogue: rankerCatalogueOf(list), timeoutMs: 1000, guard: buildFloodGuard(list, guarded) };
}

const off = contextOf(entries, false);
const on = contextOf(entries, true);
const f2 = (n) => n.toFixed(2);
const f3 = (n) => n.toFixed(3);
const flood = (name) => name.startsWith(`${FLOOD}__`);

const rows = [];
let sums = { offShare: 0, onShare: 0, offFirst: 0, onFirst: 0 };
for (const query of QUERIES) {
  const before = (await rankTools(off, query, 5)).matched;
  const after = (await rankTools(on, query, 5)).matched;
  const b = before.filter(flood).length;
  const a = after.filter(flood).length;
  sums = { offShare: sums.offShare + b, onShare: sums.onShare + a, offFirst: sums.offFirst + Number(flood(before[0] ?? '')), onFirst: sums.onFirst + Number(flood(after[0] ?? '')) };
  rows.push(`| ${query} | ${b} / ${before.length} | ${before[0] ?? "–"} | ${a} / ${after.length} | ${after[0] ?? "–"} |`);
}
console.log(`## Flood: ${entries.length - 50} real tools (files, memory, everything) + 50 flood tools on "${FLOOD}", ${QUERIES.length} queries, limit 5\n`);
console.log('| query | flood in top 5, guard off | first, guard off | flood in top 5, guard on | first, guard on |');
console.log('|---|---:|---|---:|---|');
for (const row of rows) console.log(row);
console.log(`| **mean / count** | **${f2(sums.offShare / QUERIES.length)} of 5** | **flood first ${sums.offFirst} / ${QUERIES.length}** | **${f2(sums.onShare / QUERIES.length)} of 5** | **flood first ${sums.onFirst} / ${QUERIES.length}** |`);

const DATA = fileURLToPath(new URL('../../shared/data/retrieval/', import.meta.url));
if (!existsSync(DATA)) {
  console.log(`\n(retrieval sets absent at ${DATA}: guard on real sets not measured)`);
} else {
  console.log('\n## The guard on the shared retrieval sets (BM25, Recall@5 / nDCG@10)\n');
  console.log('| set | tools | queries | Recall@5 off | Recall@5 on | nDCG@10 off | nDCG@10 on |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const set of ['livemcpbench', 'metatool']) {
    const list = parseTools(readFileSync(`${DATA}${set}/tools.jsonl`, 'utf8')).items.map(toCatalogEntry);
    const queries = parseQueries(readFileSync(`${DATA}${set}/queries.jsonl`, 'utf8')).items;
    const metrics = [];
    for (const guarded of [false, true]) {
      const context = contextOf(list, guarded);
      const ranked = new Map();
      for (const query of queries) ranked.set(query.query, (await rankTools(context, query.query, 10)).matched);
      metrics.push(summarise(queries, [5], (query) => ranked.get(query)));
    }
    console.log(`| ${set} | ${list.length} | ${queries.length} | ${f3(metrics[0].recall[5])} | ${f3(metrics[1].recall[5])} | ${f3(metrics[0].ndcg10)} | ${f3(metrics[1].ndcg10)} |`);
  }
}
