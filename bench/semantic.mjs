// Semantic ranking figures for bench/search.mjs (docs/search.md): vectors of the shared retrieval
// sets and catalogues through the shipped encoder (cached under node_modules/.cache, so only the
// first run embeds), 2-fold cross-validation of the fusion weight α, quality with and without the
// encoder, search latency, RSS and index times.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crossValidate, foldOf, grid } from '../dist/discovery/calibrate.js';
import { buildFloodGuard, candidateCount, diversify } from '../dist/discovery/diversify.js';
import { groupsOf, recallAt, summarise } from '../dist/discovery/metrics.js';
import { rankerCatalogueOf } from '../dist/discovery/hostRanker.js';
import { rankTools } from '../dist/discovery/rank.js';
import { buildSearchIndex } from '../dist/discovery/searchIndex.js';
import { judge } from '../dist/discovery/strength.js';
import { clipText, MODEL_ID, workerEmbedder } from '../dist/discovery/semantic/embedder.js';
import { BATCH_SIZE, SemanticEngine, toolText } from '../dist/discovery/semantic/engine.js';
import { cosines, DEFAULT_ALPHA, fuseRanking } from '../dist/discovery/semantic/fusion.js';
import { readVectors, vectorKey, writeVectors } from '../dist/discovery/semantic/vectorCache.js';

const CACHE = fileURLToPath(new URL('../node_modules/.cache/toolshelf-bench/vectors.json', import.meta.url));
const f3 = (n) => n.toFixed(3);
const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);

/** Vectors for texts, from the bench cache or the encoder (batches of 32); the cache is written as it grows. */
export async function vectorsFor(texts, embedder) {
  const cache = readVectors(CACHE);
  const keys = texts.map((text) => vectorKey(MODEL_ID, clipText(text)));
  const missing = [...new Set(keys.map((key, i) => (cache.has(key) ? undefined : i)).filter((i) => i !== undefined))];
  let since = 0;
  for (let at = 0; at < missing.length; at += 32) {
    const batch = missing.slice(at, at + 32);
    const vectors = await embedder.embed(batch.map((i) => texts[i]), 600_000);
    batch.forEach((i, j) => cache.set(keys[i], vectors[j]));
    if ((since += batch.length) >= 1000 || at + 32 >= missing.length) {
      writeVectors(CACHE, cache);
      since = 0;
    }
  }
  return keys.map((key) => cache.get(key));
}

/** Per set: BM25 rankings of every query (all hits), the query's cosine to every tool, and the set's flooding guard. */
async function prepare(sets, embedder) {
  const out = [];
  for (const { name, entries, queries } of sets) {
    const index = buildSearchIndex(entries);
    const guard = buildFloodGuard(entries);
    const toolVectors = await vectorsFor(entries.map(toolText), embedder);
    const queryVectors = await vectorsFor(queries.map((q) => q.query), embedder);
    const rows = queries.map((query, i) => {
      const ranked = index.rank(query.query, entries.length);
      const scores = cosines(queryVectors[i], toolVectors);
      return { query, ranked, strong: judge(ranked).strong, cosine: new Map(entries.map((e, j) => [e.qualifiedName, scores[j]])), set: name, guard };
    });
    out.push(rows);
  }
  return out;
}

/** A ranking as tool_search serves it (rank.ts): `candidateCount(k)` candidates through the flooding guard, `k` kept. */
const served = (row, candidates, k, exact = row.ranked.exact) => diversify(candidates, row.query.query, row.guard, k, Math.min(exact, candidates.length)).map((h) => h.name);
const fused = (row, alpha, k) => served(row, fuseRanking({ bm25: row.ranked.hits, exact: row.ranked.exact, cosine: row.cosine, alpha, strong: row.strong }, candidateCount(k)), k);
const bm25Alone = (row, k) => served(row, row.ranked.hits.slice(0, candidateCount(k)), k);
/** Rows of one set by query text (`summarise` ranks by the text). */
const byText = (rows) => new Map(rows.map((row) => [row.query.query, row]));

/** α by 2-fold CV (objective: mean Recall@5 of the two sets), and dev figures with and without the encoder. */
export async function semanticQualityTables(sets) {
  const embedder = workerEmbedder();
  const started = performance.now();
  const prepared = await prepare(sets, embedder);
  await embedder.close();
  const prepMs = performance.now() - started;
  const recall = (rows, alpha) => {
    const rowOf = byText(rows);
    return rows.length === 0 ? 0 : summarise(rows.map((r) => r.query), [5], (q) => fused(rowOf.get(q), alpha, 10)).recall[5];
  };
  const choices = crossValidate(prepared, grid(0, 1, 0.05), recall);
  const lines = [
    `Fusion: max-normalised BM25 + α × z-scored cosine; shipped α = ${DEFAULT_ALPHA}. Objective: mean Recall@5 of the two sets. Every ranking passes the flooding guard as tool_search's does (diversify.ts). (Vectors ready in ${(prepMs / 1000).toFixed(1)} s, from the bench cache when present.)`,
    '',
    '| tuned on fold | chosen α | Recall@5 there | held-out fold: Recall@5 |',
    '|---|---:|---:|---:|',
    ...choices.map((c) => `| ${c.tunedOn} | ${c.value} | ${f3(c.tuned)} | ${c.tunedOn === 'A' ? 'B' : 'A'}: ${f3(c.held)} |`),
    '',
    '| set | queries | ranking | Recall@1 | Recall@5 | Recall@10 | nDCG@10 | CV Recall@5 (held-out folds, α chosen on the other) |',
    '|---|---:|---|---:|---:|---:|---:|---:|',
  ];
  prepared.forEach((rows) => {
    const name = rows[0]?.set;
    const byQuery = byText(rows);
    for (const [label, alpha] of [['BM25 alone', 0], [`BM25 + encoder, α ${DEFAULT_ALPHA}`, DEFAULT_ALPHA]]) {
      const m = summarise(rows.map((r) => r.query), [1, 5, 10], (q) => (alpha === 0 ? bm25Alone(byQuery.get(q), 10) : fused(byQuery.get(q), alpha, 10)));
      let cv = '';
      if (alpha !== 0) {
        // Each fold scored at the α chosen on the other, pooled over the set's queries.
        const hits = choices.map((c) => {
          const held = rows.filter((r) => foldOf(r.query.id) !== c.tunedOn);
          return { n: held.length, r: recall(held, c.value) };
        });
        cv = f3(hits.reduce((s, h) => s + h.n * h.r, 0) / Math.max(1, rows.length));
      } else cv = f3(m.recall[5]);
      lines.push(`| ${name} | ${rows.length} | ${label} | ${f3(m.recall[1])} | ${f3(m.recall[5])} | ${f3(m.recall[10])} | ${f3(m.ndcg10)} | ${cv} |`);
    }
  });
  const rrf = prepared.map((rows) => {
    const byQuery = byText(rows);
    const r = summarise(rows.map((x) => x.query), [5], (q) => {
      const row = byQuery.get(q);
      const byCos = [...row.cosine].sort((a, b) => b[1] - a[1]).map(([n]) => n);
      const score = new Map();
      row.ranked.hits.forEach((h, i) => score.set(h.name, (score.get(h.name) ?? 0) + 1 / (60 + i + 1)));
      byCos.forEach((n, i) => score.set(n, (score.get(n) ?? 0) + 1 / (60 + i + 1)));
      return served(row, [...score].sort((a, b) => b[1] - a[1]).slice(0, candidateCount(10)).map(([name]) => ({ name })), 10, 0);
    }).recall[5];
    return `${rows[0]?.set} ${f3(r)}`;
  });
  lines.push('', `Reciprocal-rank fusion (k = 60) for comparison, Recall@5: ${rrf.join(', ')}.`);
  lines.push('', ...differingQueries(prepared.find((rows) => rows[0]?.set === 'livemcpbench') ?? []));
  return lines;
}

/**
 * The livemcpbench queries whose Recall@5 differs between BM25 and the fusion (α shipped), each
 * with and without the per-server cap, and the relevant tools the cap held out of the fused top 5
 * (in it without the cap, not with it): where the fusion and the cap lose and gain.
 */
function differingQueries(rows) {
  const uncapped = (row) => ({ ...row, guard: { ...row.guard, enabled: false } });
  const lines = [
    'LiveMCPBench queries where the rankings differ (Recall@5; "no cap": the per-server cap off, as no tool_search ranks):',
    '',
    '| fold | query | BM25 no cap | BM25 | fused no cap | fused | relevant tools the cap held out of the fused top 5 |',
    '|---|---|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const lists = [bm25Alone(uncapped(row), 10), bm25Alone(row, 10), fused(uncapped(row), DEFAULT_ALPHA, 10), fused(row, DEFAULT_ALPHA, 10)];
    const recalls = lists.map((list) => recallAt(list, row.query, 5));
    if (new Set(recalls).size === 1) continue;
    const relevant = new Set(groupsOf(row.query).flat());
    const held = lists[2].slice(0, 5).filter((name) => relevant.has(name) && !lists[3].slice(0, 5).includes(name));
    const text = row.query.query.replace(/\s+/g, ' ').replace(/\|/g, '/');
    lines.push(`| ${foldOf(row.query.id)} | ${text.length > 80 ? `${text.slice(0, 79)}…` : text} | ${recalls.map(f3).join(' | ')} | ${held.join(', ')} |`);
  }
  return lines;
}

function time(fn) {
  const start = process.hrtime.bigint();
  return Promise.resolve(fn()).then(() => Number(process.hrtime.bigint() - start) / 1e6);
}
const pct = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];

/** Waits until `engine` has embedded its tracked catalogue (or failed), polling every 20 ms. */
async function untilReady(engine) {
  for (;;) {
    const status = engine.status();
    if (status.state === 'ready' || status.state === 'failed') return status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Latency of a search with and without the encoder at each size, index time per tool, RSS, and
 * first-start / cached-start index time of the bundled catalogue. `catalogue(size)` and `queries`
 * come from bench/search.mjs; `bundled` is the bundled config's deferred entries.
 */
export async function semanticCostTables(catalogue, queries, bundled, sizes) {
  const rssOff = process.memoryUsage().rss;
  const dir = mkdtempSync(join(tmpdir(), 'toolshelf-bench-'));
  const lines = [
    '| tools | search p50 ms (BM25) | p99 | search p50 ms (with encoder) | p99 | CPU ms per search with encoder (all threads) |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  // One embedder for the whole run: the model loads once, like in a gateway.
  const embedder = workerEmbedder();
  let loadedRss = 0;
  let perTool = '';
  for (const size of sizes) {
    const entries = catalogue(size);
    const index = buildSearchIndex(entries);
    const texts = entries.map(toolText);
    const fresh = texts.slice(0, 64);
    if (size === sizes[0]) {
      await embedder.embed(['warm up'], 600_000);
      loadedRss = process.memoryUsage().rss;
      const cpu = process.cpuUsage();
      // 32 tools in the gateway's own batches (engine.ts BATCH_SIZE), as its background embedding runs.
      const ms = await time(async () => {
        for (let at = 0; at < 32; at += BATCH_SIZE) await embedder.embed(fresh.slice(at, at + BATCH_SIZE), 600_000);
      });
      const used = process.cpuUsage(cpu);
      perTool = `${(ms / 32).toFixed(1)} ms per tool wall, ${((used.user + used.system) / 1000 / 32).toFixed(1)} ms CPU (32 tools in the gateway's batches of ${BATCH_SIZE}, texts cut at 300 characters)`;
    }
    const vectors = await vectorsFor(texts, embedder);
    const file = join(dir, `v${size}.json`);
    writeVectors(file, new Map(texts.map((text, i) => [vectorKey(MODEL_ID, clipText(text)), vectors[i]])));
    const engine = new SemanticEngine({ embedder, cacheFile: file });
    const scorer = engine.track(entries);
    engine.start();
    await untilReady(engine);
    const base = { index, mode: 'bm25', catalogue: rankerCatalogueOf(entries), timeoutMs: 1000 };
    const plain = [];
    const hybrid = [];
    for (const q of queries.slice(0, 30)) await rankTools({ ...base, semantic: scorer }, q, 5);
    for (const q of queries) plain.push(await time(() => rankTools(base, q, 5)));
    // Distinct queries, none memoised: each pays its query embedding.
    const cpu = process.cpuUsage();
    for (const q of queries.slice(30)) hybrid.push(await time(() => rankTools({ ...base, semantic: scorer }, q, 5)));
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000 / hybrid.length;
    lines.push(`| ${size.toLocaleString('en-US')} | ${f3(pct(plain, 0.5))} | ${f3(pct(plain, 0.99))} | ${f3(pct(hybrid, 0.5))} | ${f3(pct(hybrid, 0.99))} | ${cpuMs.toFixed(1)} |`);
  }
  const indexedRss = process.memoryUsage().rss;
  // First start of the bundled catalogue (empty cache), then a start from that cache.
  const cacheFile = join(dir, 'bundled.json');
  let embedded = 0;
  const counting = { embed: (texts, ms) => ((embedded += texts.length), embedder.embed(texts, ms)), close: async () => {} };
  const first = new SemanticEngine({ embedder: counting, cacheFile });
  first.track(bundled);
  const firstMs = await time(async () => (first.start(), untilReady(first)));
  await first.close();
  const firstCount = embedded;
  embedded = 0;
  const again = new SemanticEngine({ embedder: counting, cacheFile });
  again.track(bundled);
  const againMs = await time(async () => (again.start(), untilReady(again)));
  await embedder.close();
  rmSync(dir, { recursive: true, force: true });
  const alone = JSON.parse(execFileSync(process.execPath, [fileURLToPath(new URL('modelRss.mjs', import.meta.url))], { encoding: 'utf8' }));
  const added = (bytes) => `+${mib(bytes - alone.off)}`;
  return [
    ...lines,
    '',
    `Load average while measuring: ${loadavg().map((n) => n.toFixed(1)).join(', ')} (${cpus().length} cores): wall times on a loaded machine are waits for a core; the CPU column is the work.`,
    `Index time: ${perTool}.`,
    `RSS of this process: encoder off ${mib(rssOff)} MiB; model loaded ${mib(loadedRss)} MiB (+${mib(loadedRss - rssOff)}); after indexing ${sizes.map((s) => s.toLocaleString('en-US')).join(' + ')} tools ${mib(indexedRss)} MiB.`,
    `RSS added by the model alone (bench/modelRss.mjs, a fresh process, the gateway's embedder and batch size): loaded ${added(alone.loaded)} MiB, after embedding ${alone.tools} tools ${added(alone.indexed)}, after 30 queries ${added(alone.queried)}, peak ${added(alone.peak)} (before the model ${mib(alone.off)} MiB).`,
    `Bundled config (${bundled.length} deferred tools): first start embeds ${firstCount} tools in ${(firstMs / 1000).toFixed(2)} s (model load included); a start from that cache embeds ${embedded} in ${againMs.toFixed(0)} ms.`,
  ];
}
