// Search benchmark (docs/benchmarks.md): retrieval quality on the shared dev sets
// (toolshelf's index beside plain BM25); tool_search answer bytes, promotions and weak judgements
// (today's full-schema answer beside the compact one, same catalogue and ranking); 2-fold
// cross-validation over query ids of every tuned constant (strong-rule floor, short-query terms and
// share, ratio and coverage; deprecated penalty); in-process latency of a search (ranking + strong
// rule), an index rebuild and a manifest render at 100, 1,000 and 10,000 tools. Catalogues past the
// shared ones are renamed copies.
// Semantic ranking (bench/semantic.mjs): 2-fold CV of the fusion weight, quality with and without
// the encoder, latency and memory with it. Its first run embeds every tool and query of the sets
// and catalogues (minutes); vectors are cached in node_modules/.cache/toolshelf-bench.
// Run after a build: `npm run bench:search` (or `npx tsc -p tsconfig.json && node bench/search.mjs`).
// `BENCH_SIZES=100,1000` limits the catalogue sizes (default 100,1000,10000); `BENCH_SEMANTIC=0`
// skips the encoder. Prints markdown tables to stdout.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { evaluate } from '../dist/commands/eval.js';
import { renderManifest } from '../dist/discovery/manifest.js';
import { parseQueries, parseTools, toCatalogEntry } from '../dist/discovery/retrievalSet.js';
import { crossValidate, foldOf as foldOfId, grid, rankQueries, strongSetStats, weakTestAccuracy } from '../dist/discovery/calibrate.js';
import { groupsOf, summarise } from '../dist/discovery/metrics.js';
import { buildSearchIndex, DEPRECATED_PENALTY } from '../dist/discovery/searchIndex.js';
import { DEFAULT_STRENGTH_RULE, judge, relativeTop } from '../dist/discovery/strength.js';
import { noMatchNote, searchResult } from '../dist/gateway/searchAnswer.js';
import { semanticCostTables, semanticQualityTables } from './semantic.mjs';

const DATA = fileURLToPath(new URL('../../shared/data/', import.meta.url));
if (!existsSync(DATA)) {
  console.error(`bench:search needs the shared evaluation data at ${DATA}`);
  process.exit(1);
}
const read = (relative) => readFileSync(DATA + relative, 'utf8');
const f3 = (n) => n.toFixed(3);
const f2 = (n) => n.toFixed(2);
const int = (n) => Math.round(n).toLocaleString('en-US');

/** The two shared retrieval sets: tools as catalogue entries, judged queries. */
function retrievalSets() {
  return ['livemcpbench', 'metatool'].map((name) => ({
    name,
    entries: parseTools(read(`retrieval/${name}/tools.jsonl`)).items.map(toCatalogEntry),
    queries: parseQueries(read(`retrieval/${name}/queries.jsonl`)).items,
  }));
}

/** The answer before strong matches: every match with its full projected schema, as text and structuredContent. */
function fullSchemaAnswer(entries, query) {
  if (entries.length === 0) return { content: [{ type: 'text', text: noMatchNote(query) }], structuredContent: { tools: [] } };
  const tools = entries.map((e) => ({ name: e.qualifiedName, description: e.projected.description, parameters: e.projected.inputSchema }));
  return { content: [{ type: 'text', text: JSON.stringify({ tools }) }], structuredContent: { tools } };
}

const SIZES = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const bytesOf = (value) => Buffer.byteLength(JSON.stringify(value));
const quantile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
};

/** Answer bytes (whole CallToolResult, compact JSON), promotions and weak judgements at limit 5. */
function answerTable(sets) {
  const lines = [
    '| set | queries | full-schema answer p50 / p90 B | compact answer p50 / p90 B | p50 ratio | promoted per search (full → compact) | judged weak | weak with a relevant tool named |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { name, entries, queries } of sets) {
    const index = buildSearchIndex(entries);
    const byName = new Map(entries.map((e) => [e.qualifiedName, e]));
    const old = [];
    const now = [];
    let promotedOld = 0;
    for (const query of queries) {
      const ranked = index.rank(query.query, 5);
      const matched = ranked.hits.map((hit) => byName.get(hit.name));
      const { strong } = judge(ranked);
      old.push(bytesOf(fullSchemaAnswer(matched, query.query)));
      now.push(bytesOf(searchResult(matched, query.query, strong)));
      promotedOld += matched.length;
    }
    const stats = strongSetStats(rankQueries(index, queries, 5), DEFAULT_STRENGTH_RULE);
    const p50 = [quantile(old, 0.5), quantile(now, 0.5)];
    lines.push(
      `| ${name} | ${queries.length} | ${int(p50[0])} / ${int(quantile(old, 0.9))} | ${int(p50[1])} / ${int(quantile(now, 0.9))} | ${f2((100 * p50[1]) / p50[0])}% | ` +
        `${f2(promotedOld / queries.length)} → ${f2(stats.strongPerQuery)} | ${f2(100 * stats.weakShare)}% | ${f2(100 * stats.weakWithRelevant)}% |`,
    );
  }
  return lines;
}

/**
 * The bundled config's deferred tools (servers.config.json's direct and hidden tools left out), from
 * their captured tools/list (test/fixtures/catalogs/bundled.json).
 */
function bundledDeferred() {
  const root = new URL('../', import.meta.url);
  const config = JSON.parse(readFileSync(new URL('servers.config.json', root), 'utf8'));
  const tools = JSON.parse(readFileSync(new URL('test/fixtures/catalogs/bundled.json', root), 'utf8'));
  return Object.entries(tools).flatMap(([server, list]) =>
    list
      .filter((tool) => (config.mcpServers[server]?.tools?.[tool.name]?.exposure ?? 'deferred') === 'deferred')
      // The upstream's own tool object kept whole: its annotations become the answer's hints.
      .map((tool) => ({ ...toCatalogEntry({ ...tool, name: `${server}__${tool.name}` }), tool: { ...tool } })),
  );
}

/** Answer bytes over the everyday requests (bench/fixtures/everyday.json) on the bundled config's deferred tools, BM25 ranking. */
function everydayAnswerLines() {
  const entries = bundledDeferred();
  const index = buildSearchIndex(entries);
  const byName = new Map(entries.map((e) => [e.qualifiedName, e]));
  const requests = JSON.parse(readFileSync(new URL('fixtures/everyday.json', import.meta.url), 'utf8'));
  const old = [];
  const now = [];
  for (const { query } of requests) {
    const ranked = index.rank(query, 5);
    const matched = ranked.hits.map((hit) => byName.get(hit.name));
    old.push(bytesOf(fullSchemaAnswer(matched, query)));
    now.push(bytesOf(searchResult(matched, query, judge(ranked).strong)));
  }
  const ratios = old.map((bytes, i) => now[i] / bytes);
  return [
    '',
    `Everyday requests (bench/fixtures/everyday.json, ${requests.length}) on the bundled config's ${entries.length} deferred tools: full-schema answer p50 ${int(quantile(old, 0.5))} B, ` +
      `compact p50 ${int(quantile(now, 0.5))} B: ${f2((100 * quantile(now, 0.5)) / quantile(old, 0.5))}% (median of the per-request ratios ${f2(100 * quantile(ratios, 0.5))}%).`,
  ];
}

/** One 2-fold cross-validation as table rows: the value each fold chose, its objective there and on the other fold. */
function cvRows(label, choices, show) {
  return choices.map((c) => `| ${label} | ${c.tunedOn} | ${show(c.value)} | ${f3(c.tuned)} | ${c.tunedOn === 'A' ? 'B' : 'A'}: ${f3(c.held)} |`);
}

/**
 * Why the short-query test: first hits that match one query term yet pass the floor, by query length
 * (distinct terms), and how many of them are relevant. Both sets pooled.
 */
function oneTermRows(ranked) {
  const rows = ranked.flat().filter(({ ranked: r }) => r.exact === 0 && r.hits[0]?.matchedTerms === 1 && relativeTop(r) >= DEFAULT_STRENGTH_RULE.floor);
  const line = (label, keep) => {
    const kept = rows.filter(keep);
    const right = kept.filter(({ query, ranked: r }) => groupsOf(query).some((group) => group.includes(r.hits[0].name))).length;
    return `| ${label} | ${kept.length} | ${right} |`;
  };
  return [
    `First hit matching one query term and passing the floor ${DEFAULT_STRENGTH_RULE.floor} (both sets):`,
    '',
    '| query terms | such first hits | relevant |',
    '|---|---:|---:|',
    line('2–3', ({ ranked: r }) => r.distinctTerms <= 3),
    line('4 or more', ({ ranked: r }) => r.distinctTerms >= 4),
  ];
}

/** 2-fold CV (by query id) of every tuned constant, on both shared sets at once (mean of the sets). */
function crossValidationTables(sets) {
  const ranked = sets.map(({ entries, queries }) => rankQueries(buildSearchIndex(entries), queries, 5));
  const floors = grid(0.1, 2, 0.05);
  // The floor alone (the rule before the short-query test), then jointly with it; shortTerms 0 is "off" and wins ties.
  const floor = crossValidate(ranked, floors, (rows, value) => weakTestAccuracy(rows, { floor: value, shortTerms: 0, shortShare: 0 }));
  const weakTest = crossValidate(
    ranked,
    floors.flatMap((f) => [0, 1, 2, 3, 4, 5, 6].flatMap((shortTerms) => grid(0.5, 1, 0.05).map((shortShare) => ({ floor: f, shortTerms, shortShare })))),
    weakTestAccuracy,
  );
  const { floor: shippedFloor, shortTerms, shortShare } = DEFAULT_STRENGTH_RULE;
  const shape = crossValidate(
    ranked,
    grid(0.3, 0.95, 0.05).flatMap((ratio) => grid(0, 1, 0.25).map((coverage) => ({ ratio, coverage }))),
    (rows, value) => strongSetStats(rows, { floor: shippedFloor, shortTerms, shortShare, ...value }).f1,
  );
  const penalties = grid(0.1, 1, 0.1);
  const recallAt = (penalty) => sets.map(({ entries }) => buildSearchIndex(entries, undefined, { deprecatedPenalty: penalty }));
  const indexes = new Map(penalties.map((p) => [p, recallAt(p)]));
  const penaltyChoices = crossValidate(
    sets.map(({ queries }, i) => queries.map((query) => ({ query, set: i }))),
    penalties,
    (rows, p) => (rows.length === 0 ? 0 : summarise(rows.map((r) => r.query), [5], (q) => indexes.get(p)[rows[0].set].search(q, 10).map((h) => h.name)).recall[5]),
  );
  const lines = [
    `Shipped: floor ${shippedFloor}, short query ≤ ${shortTerms} terms with share ${shortShare}, ratio ${DEFAULT_STRENGTH_RULE.ratio}, coverage ${DEFAULT_STRENGTH_RULE.coverage}, deprecated penalty ${DEPRECATED_PENALTY}.`,
    'Objectives (mean of the two sets): floor (alone, and with the short-query terms and share), balanced accuracy of "first hit relevant"; ratio + coverage, F1 of the strong set at the shipped floor and short-query test; penalty, Recall@5.',
    '',
    '| constant | tuned on fold | chosen | objective there | held-out fold: objective |',
    '|---|---|---:|---:|---:|',
    ...cvRows('floor alone', floor, (v) => v),
    ...cvRows('floor, short terms, short share', weakTest, (v) => `${v.floor}, ${v.shortTerms}, ${v.shortShare}`),
    ...cvRows('ratio, coverage', shape, (v) => `${v.ratio}, ${v.coverage}`),
    ...cvRows('deprecated penalty', penaltyChoices, (v) => v),
    '',
    ...oneTermRows(ranked),
    '',
    `Deprecated penalty: the sets hold no deprecated tool, so Recall@5 is the same at every grid value (the fold "choice" is the grid's first); ${DEPRECATED_PENALTY} is set by filesystem's read_file case.`,
    '',
    '| set | fold | Recall@1 | Recall@5 | Recall@10 | nDCG@10 | strong-set recall | strong-set precision | strong per query | judged weak |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  sets.forEach(({ name, queries }, i) => {
    for (const fold of ['A', 'B']) {
      const rows = ranked[i].filter((row) => foldOfId(row.query.id) === fold);
      const m = summarise(rows.map((r) => r.query), [1, 5, 10], (q) => indexes.get(DEPRECATED_PENALTY)[i].search(q, 10).map((h) => h.name));
      const s = strongSetStats(rows, DEFAULT_STRENGTH_RULE);
      lines.push(`| ${name} | ${fold} (${rows.length}) | ${f3(m.recall[1])} | ${f3(m.recall[5])} | ${f3(m.recall[10])} | ${f3(m.ndcg10)} | ${f3(s.recall)} | ${f3(s.precision)} | ${f2(s.strongPerQuery)} | ${f2(100 * s.weakShare)}% |`);
    }
    const none = summarise(queries, [5], (q) => indexes.get(1)[i].search(q, 10).map((h) => h.name)).recall[5];
    const shipped = summarise(queries, [5], (q) => indexes.get(DEPRECATED_PENALTY)[i].search(q, 10).map((h) => h.name)).recall[5];
    lines.push(`| ${name} | all, penalty 1 → ${DEPRECATED_PENALTY} | | ${f3(none)} → ${f3(shipped)} | | | | | | |`);
  });
  return lines;
}

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
  for (const size of SIZES) {
    const entries = catalogue(size);
    const rebuildRuns = size >= 10000 ? 5 : 20;
    const rebuild = percentiles(Array.from({ length: rebuildRuns }, () => time(() => buildSearchIndex(entries).search('', 1))));
    const index = buildSearchIndex(entries);
    for (const query of queries.slice(0, 50)) index.search(query, 5);
    const searchRuns = [];
    // A search as tool_search runs it: ranking plus the strong rule.
    for (let round = 0; round < 4; round += 1) for (const query of queries) searchRuns.push(time(() => judge(index.rank(query, 5))));
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
const sets = retrievalSets();
console.log(`\n## tool_search answers (limit 5, shared/data/retrieval, same catalogue and ranking)\n`);
console.log([...answerTable(sets), ...everydayAnswerLines()].join('\n'));
console.log(`\n## strong rule and deprecated penalty, 2-fold cross-validation over query ids\n`);
console.log(crossValidationTables(sets).join('\n'));
console.log(`\n## tool_search latency (in-process, limit 5, ${process.version}, this machine)\n`);
console.log(latencyTable().join('\n'));
if (process.env.BENCH_SEMANTIC !== '0') {
  console.log(`\n## semantic ranking: fusion weight by 2-fold cross-validation, dev figures with and without the encoder\n`);
  console.log((await semanticQualityTables(sets)).join('\n'));
  const bundledFile = fileURLToPath(new URL('../test/fixtures/catalogs/bundled.json', import.meta.url));
  const bundled = Object.entries(JSON.parse(readFileSync(bundledFile, 'utf8'))).flatMap(([server, tools]) => tools.map((tool) => toCatalogEntry({ ...tool, name: `${server}__${tool.name}` })));
  const queries = [
    ...parseQueries(read('retrieval/livemcpbench/queries.jsonl')).items,
    ...parseQueries(read('retrieval/metatool/queries.jsonl')).items.slice(0, 200),
  ].map((query) => query.query);
  console.log(`\n## semantic ranking: cost (in-process, limit 5, ${process.version}, this machine)\n`);
  console.log((await semanticCostTables(catalogue, queries, bundled, SIZES)).join('\n'));
}
