// The RSS the sentence encoder adds to a serving process, alone in a fresh Node process (started by
// bench/semantic.mjs, docs/search.md "Cost"): the production path (workerEmbedder, SemanticEngine,
// its batch size, no vector cache) embeds the tools of the shared catalogues github, playwright,
// chrome-devtools and linear, then answers 30 queries. Prints one JSON line: RSS in bytes before the
// model, once loaded (one text embedded), after the tools, after the queries, and the peak.
import { readFileSync } from 'node:fs';
import { resourceUsage } from 'node:process';
import { fileURLToPath } from 'node:url';
import { toCatalogEntry } from '../dist/discovery/retrievalSet.js';
import { workerEmbedder } from '../dist/discovery/semantic/embedder.js';
import { SemanticEngine } from '../dist/discovery/semantic/engine.js';

const DATA = fileURLToPath(new URL('../../shared/data/catalogs/', import.meta.url));
const entries = ['github', 'playwright', 'chrome-devtools', 'linear'].flatMap((name) =>
  JSON.parse(readFileSync(`${DATA}${name}.json`, 'utf8')).map((tool) => toCatalogEntry({ ...tool, name: `${name}__${tool.name}` })),
);
const queries = entries.slice(0, 30).map((entry) => `help me ${entry.upstreamName.replace(/[_-]/g, ' ')}`);
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

const embedder = workerEmbedder();
await settle();
const off = process.memoryUsage().rss;
await embedder.embed(['warm up'], 600_000);
await settle();
const loaded = process.memoryUsage().rss;
const engine = new SemanticEngine({ embedder, queryTimeoutMs: 600_000 });
const scorer = engine.track(entries);
engine.start();
for (let status = engine.status(); status.state !== 'ready' && status.state !== 'failed'; status = engine.status()) await new Promise((resolve) => setTimeout(resolve, 50));
await settle();
const indexed = process.memoryUsage().rss;
for (const query of queries) await scorer.score(query);
await settle();
const queried = process.memoryUsage().rss;
const peak = resourceUsage().maxRSS * 1024;
await engine.close();
console.log(JSON.stringify({ tools: entries.length, state: engine.status().state, off, loaded, indexed, queried, peak }));
