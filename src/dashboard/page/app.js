// The toolshelf dashboard: preact + htm, no build step. Every upstream string is rendered as a text
// node (never as HTML), and the page's CSP allows only this origin's scripts. See docs/dashboard.md.
import { h, render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);
const VIEWS = ['Servers', 'Tools', 'Review', 'Search', 'Manifests', 'Activity'];
const MAX_ITEMS = 500;

const number = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : '');
const time = (iso) => new Date(iso).toLocaleTimeString();

async function api(path, options = {}) {
  const response = await fetch(path, { credentials: 'same-origin', ...options });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

function App() {
  const [state, setState] = useState(undefined);
  const [error, setError] = useState(undefined);
  const [items, setItems] = useState([]);
  const [view, setView] = useState(() => VIEWS.find((v) => `#${v.toLowerCase()}` === location.hash) ?? 'Servers');
  // The configured view (docs/views.md) the page is narrowed to; '' for every client.
  const [scope, setScope] = useState('');

  useEffect(() => {
    let stopped = false;
    const load = () =>
      api('/ui/api/state')
        .then((s) => !stopped && (setState(s), setError(undefined)))
        .catch((e) => !stopped && setError(e.message));
    load();
    const timer = setInterval(load, 3000);
    const events = new EventSource('/ui/api/events');
    events.addEventListener('activity', (message) => {
      const item = JSON.parse(message.data);
      setItems((old) => (old.some((o) => o.seq === item.seq) ? old : [...old, item].slice(-MAX_ITEMS)));
    });
    return () => {
      stopped = true;
      clearInterval(timer);
      events.close();
    };
  }, []);

  const choose = (v) => {
    setView(v);
    history.replaceState(null, '', `#${v.toLowerCase()}`);
  };

  const scoped = state?.views.find((v) => v.name === scope);
  if (!state) return html`<p class="loading" role="status">${error ? `Cannot load the shelf: ${error}` : 'Loading the shelf…'}</p>`;
  const t = state.totals;
  const saved = t.allDirectBytes > 0 ? Math.round((1 - t.firstListBytes / t.allDirectBytes) * 100) : 0;
  return html`
    <header>
      <h1>toolshelf <span class="muted">${state.version}</span></h1>
      <span class="totals" data-testid="totals">${t.direct} direct · ${t.deferred} deferred · ${t.hidden} hidden · first tools/list ${number(t.firstListBytes)} B vs ${number(t.allDirectBytes)} B all-direct (${saved >= 0 ? `${saved}% smaller` : `${-saved}% larger`})</span>
      ${state.views.length > 0 &&
      html`<label class="scope">View <select data-testid="scope" value=${scope} onChange=${(e) => setScope(e.currentTarget.value)}>
        <option value="">all clients</option>${state.views.map((v) => html`<option value=${v.name}>${v.name}</option>`)}
      </select></label>`}
      ${error && html`<span class="error" role="alert">${error}</span>`}
    </header>
    <nav aria-label="Views">
      ${VIEWS.map((v) => html`<button type="button" aria-current=${view === v ? 'page' : undefined} onClick=${() => choose(v)}>${v}${v === 'Review' && waiting(state) > 0 ? html` <span class="count" aria-label=${`${waiting(state)} waiting for review`}>${waiting(state)}</span>` : ''}</button>`)}
    </nav>
    <main id="main" tabindex="-1">
      ${view === 'Servers' && html`<${Servers} state=${state} />`}
      ${view === 'Tools' && html`<${Tools} state=${state} scope=${scoped} />`}
      ${view === 'Review' && html`<${Review} state=${state} />`}
      ${view === 'Search' && html`<${Search} csrf=${state.csrf} scope=${scope} />`}
      ${view === 'Manifests' && html`<${Manifests} manifests=${scoped ? scoped.manifests : state.manifests} />`}
      ${view === 'Activity' && html`<${ActivityView} items=${scope ? items.filter((i) => i.kind !== 'trace' || i.event.view === scope) : items} state=${state} />`}
    </main>`;
}

function Servers({ state }) {
  const [note, setNote] = useState(undefined);
  const signIn = async (server) => {
    try {
      await api('/ui/api/sign-in', { method: 'POST', headers: { 'content-type': 'application/json', 'x-toolshelf-csrf': state.csrf }, body: JSON.stringify({ server }) });
      setNote(`The sign-in for ${server} opened in your browser; this page shows it connected once you finish.`);
    } catch (err) {
      setNote(err.message);
    }
  };
  return html`<h2>Servers</h2>
    ${note && html`<p role="status">${note}</p>`}
    <div class="scroll"><table data-testid="servers">
      <thead><tr><th>server</th><th>state</th><th>era</th><th class="num">direct</th><th class="num">deferred</th><th class="num">hidden</th><th class="num">bytes before</th><th class="num">bytes after</th><th>last error</th></tr></thead>
      <tbody>${state.servers.map(
        (s) => html`<tr>
          <th scope="row">${s.key}</th>
          <td class=${`status-${s.status}`}>${s.status}${s.lazy ? html` <span class="chip">lazy</span>` : ''}${s.status === 'needs_sign_in' ? html` <button type="button" class="primary" onClick=${() => signIn(s.key)}>Sign in</button>` : ''}</td>
          <td>${s.era ?? ''}</td>
          <td class="num">${s.direct}</td><td class="num">${s.deferred}</td><td class="num">${s.hidden}</td>
          <td class="num">${number(s.bytesBefore)}</td><td class="num">${number(s.bytesAfter)}</td>
          <td class="error">${s.error ?? ''}</td>
        </tr>`,
      )}</tbody>
    </table></div>
    <h2>Clients</h2>
    ${state.clients.length === 0
      ? html`<p class="muted">No 2025-era client session is open (2026-07-28 clients hold none).</p>`
      : html`<ul>${state.clients.map((c) => html`<li><code>${c.session}</code> ${c.name ?? 'unnamed'}: ${c.promoted.length} promoted</li>`)}</ul>`}`;
}

function Tools({ state, scope }) {
  const [filter, setFilter] = useState('');
  const [server, setServer] = useState('');
  const inScope = scope ? new Set(scope.tools) : undefined;
  const shown = state.tools.filter((t) => (!inScope || inScope.has(t.name)) && (!server || t.server === server) && (!filter || `${t.name} ${t.description}`.toLowerCase().includes(filter.toLowerCase())));
  return html`<h2>Tools</h2>
    <form class="search" onSubmit=${(e) => e.preventDefault()}>
      <label>Filter<input type="search" value=${filter} onInput=${(e) => setFilter(e.currentTarget.value)} /></label>
      <label>Server<select value=${server} onChange=${(e) => setServer(e.currentTarget.value)}>
        <option value="">all</option>${state.servers.map((s) => html`<option value=${s.key}>${s.key}</option>`)}
      </select></label>
      <span class="muted">${shown.length} of ${state.tools.length}</span>
    </form>
    <div class="scroll"><table class="cards" data-testid="tools">
      <thead><tr><th>tool</th><th>exposure</th><th>pin</th><th>annotations</th><th class="num">schema bytes (declared → wire)</th><th>promoted in</th><th>description</th></tr></thead>
      <tbody>${shown.map(
        (t) => html`<tr>
          <th scope="row"><code>${t.name}</code></th>
          <td data-label="exposure">${t.exposure}</td>
          <td data-label="pin">${t.pin ?? ''}</td>
          <td data-label="annotations">${Object.entries(t.annotations ?? {}).filter(([, v]) => v !== undefined).map(([k, v]) => html`<span class="chip">${k}: ${String(v)}</span>`)}</td>
          <td data-label="schema bytes" class="num">${number(t.canonicalBytes)} → ${number(t.wireBytes)}${t.rung ? html` <span class="chip">rung ${t.rung}</span>` : ''}</td>
          <td data-label="promoted in">${t.promotedIn.map((s) => html`<span class="chip">${s.slice(0, 8)}</span>`)}</td>
          <td data-label="description">${t.description}</td>
        </tr>`,
      )}</tbody>
    </table></div>`;
}

/** Held items not yet rejected: what still waits for a decision. */
const waiting = (state) => state.review.filter((item) => !item.rejected).length;

const REASONS = { changed: 'changed since it was pinned', new: 'new, not pinned yet', flagged: 'flagged by the scanner', instructions: 'instructions flagged by the scanner' };

function Review({ state }) {
  const [note, setNote] = useState(undefined);
  const decide = async (item, decision) => {
    try {
      const done = await api(`/ui/api/${decision}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-toolshelf-csrf': state.csrf }, body: JSON.stringify({ server: item.server, tools: item.tool ? [item.tool] : [] }) });
      const names = [...done.approved, ...(done.instructions ? ['instructions'] : [])].join(', ');
      setNote(decision === 'approve' ? `Approved: ${names} of ${item.server}. Clients see it at their next list.` : `Rejected: ${names} of ${item.server}. It stays out of every client's reach; a later change is held again.`);
    } catch (err) {
      setNote(err.message);
    }
  };
  return html`<h2>Held for review</h2>
    <p class="muted">A tool that changed after it was pinned, a new one held by the config, or one the scanner flagged stays out of every client's list, search and calls until approved here or with <code>toolshelf approve</code>. Upstream text is shown as one line per field, control characters escaped.</p>
    ${note && html`<p role="status">${note}</p>`}
    ${state.review.length === 0
      ? html`<p data-testid="review-empty">Nothing is held for review.</p>`
      : html`<ul class="review" data-testid="review">${state.review.map(
          (item) => html`<li>
            <h3><code>${item.server}</code> ${item.tool ? html`<code>${item.tool}</code>` : 'instructions'} <span class="chip">${REASONS[item.reason] ?? item.reason}</span>${item.rejected ? html` <span class="chip">rejected</span>` : ''}</h3>
            ${item.findings.length > 0 && html`<ul>${item.findings.map((f) => html`<li>found <strong>${f.kind}</strong> at <code>${f.where}</code>: <code>${f.excerpt}</code></li>`)}</ul>`}
            ${item.changes.map((c) => html`<div class="change"><div class="muted">${c.field}</div>${c.before !== undefined ? html`<pre class="before">- ${c.before}</pre>` : ''}${c.after !== undefined ? html`<pre class="after">+ ${c.after}</pre>` : ''}</div>`)}
            <button type="button" class="primary" onClick=${() => decide(item, 'approve')}>Approve${item.tool ? ` ${item.tool}` : ' instructions'}</button>
            ${item.tool && !item.rejected ? html` <button type="button" onClick=${() => decide(item, 'reject')}>Reject ${item.tool}</button>` : ''}
          </li>`,
        )}</ul>`}`;
}

function Search({ csrf, scope }) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState(undefined);
  const [error, setError] = useState(undefined);
  const submit = async (e) => {
    e.preventDefault();
    try {
      setAnswer(await api('/ui/api/search', { method: 'POST', headers: { 'content-type': 'application/json', 'x-toolshelf-csrf': csrf }, body: JSON.stringify({ query, limit: 10, ...(scope ? { view: scope } : {}) }) }));
      setError(undefined);
    } catch (err) {
      setError(err.message);
    }
  };
  const list = (hits, label) => html`<section><h2>${label}</h2>
    ${hits.length === 0 ? html`<p class="muted">No match.</p>` : html`<ol data-testid=${label === 'BM25 alone' ? 'bm25-results' : 'served-results'}>
      ${hits.map((hit) => html`<li><code>${hit.name}</code>${hit.strong ? html` <span class="chip">strong</span>` : ''}${hit.score !== undefined ? html` <span class="muted">${hit.score.toFixed(2)}</span>` : ''}<br /><span class="muted">${hit.description}</span></li>`)}
    </ol>`}</section>`;
  return html`<h2>Search playground</h2>
    <p class="muted">Ranks as tool_search would${scope ? ` for the clients of view "${scope}"` : ''}, without promoting anything or reaching the trace.</p>
    <form class="search" onSubmit=${submit}>
      <label>Query<input type="search" name="query" value=${query} onInput=${(e) => setQuery(e.currentTarget.value)} required /></label>
      <button class="primary" type="submit">Search</button>
    </form>
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${answer && html`<p role="status">Ranker: <strong>${answer.ranker}</strong>${answer.fallback ? ` (fell back: ${answer.fallback})` : ''}${answer.weak ? ' · no strong match' : ''} · ${answer.latencyMs} ms</p>
      <div class="columns">${list(answer.served, 'Served')}${list(answer.bm25, 'BM25 alone')}</div>`}`;
}

function Manifests({ manifests }) {
  if (manifests.length === 0) return html`<p class="muted">No client gets a tool_search: nothing is deferred, or discovery is off.</p>`;
  return html`${manifests.map((m) => html`<section><h2>${m.client} <span class="muted">(${number(m.bytes)} bytes)</span></h2><pre>${m.text}</pre></section>`)}`;
}

function ActivityView({ items, state }) {
  const calls = items.filter((i) => i.kind === 'trace' && i.event.event === 'tool_called');
  const searches = items.filter((i) => i.kind === 'trace' && i.event.event === 'tool_searched');
  const lists = items.filter((i) => i.kind === 'trace' && i.event.event === 'tools_advertised');
  const reloads = items.filter((i) => i.kind === 'reload');
  const names = new Map(state.clients.map((c) => [c.session, c.name ?? 'unnamed']));
  const who = (session) => html`<span title=${session}>${names.get(session) ?? html`<code>${session.slice(0, 8)}</code>`}</span>`;
  return html`<h2>Bytes saved per model turn</h2>
    <${SavedChart} lists=${lists} allDirect=${state.totals.allDirectBytes} />
    <h2>Calls</h2>
    ${calls.length === 0 ? html`<p class="muted">No call yet.</p>` : html`<div class="scroll"><table data-testid="calls">
      <thead><tr><th>time</th><th>client</th><th>tool</th><th>origin</th><th class="num">ms</th><th>result</th></tr></thead>
      <tbody>${[...calls].reverse().map(({ seq, at, event: e }) => html`<tr key=${seq}><td>${time(at)}</td><td>${who(e.session)}</td><td><code>${e.name}</code></td><td>${e.origin}</td><td class="num">${e.latencyMs}</td><td class=${e.isError ? 'error' : ''}>${e.isError ? `error${e.failure ? `: ${e.failure}` : ''}` : 'ok'}</td></tr>`)}</tbody>
    </table></div>`}
    <h2>Searches</h2>
    ${searches.length === 0 ? html`<p class="muted">No search yet.</p>` : html`<div class="scroll"><table data-testid="searches">
      <thead><tr><th>time</th><th>client</th><th>query</th><th>top hits</th><th>ranker</th><th class="num">ms</th></tr></thead>
      <tbody>${[...searches].reverse().map(({ seq, at, event: e }) => html`<tr key=${seq}><td>${time(at)}</td><td>${who(e.session)}</td><td>${e.query ?? html`<span class="muted">(not captured)</span>`}</td><td>${e.matched.slice(0, 3).map((m) => html`<span class="chip">${m}</span>`)}</td><td>${e.ranker}${e.weak ? ' · weak' : ''}</td><td class="num">${e.latencyMs}</td></tr>`)}</tbody>
    </table></div>`}
    <h2>Config reloads</h2>
    ${reloads.length === 0 ? html`<p class="muted">No reload since the page opened.</p>` : html`<ul>${[...reloads].reverse().map((r) => html`<li key=${r.seq} class=${r.level === 'error' ? 'error' : ''}>${time(r.at)}: ${r.lines.join(' ')}</li>`)}</ul>`}`;
}

function SavedChart({ lists, allDirect }) {
  const points = useMemo(() => lists.map((i) => ({ at: i.at, saved: Math.max(0, allDirect - i.event.schemaBytes) })), [lists, allDirect]);
  if (points.length === 0) return html`<p class="muted">No tools/list served since the page opened.</p>`;
  const max = Math.max(...points.map((p) => p.saved), 1);
  const width = 600;
  const step = points.length > 1 ? width / (points.length - 1) : 0;
  const coords = points.map((p, i) => `${Math.round(i * step)},${Math.round(140 - (p.saved / max) * 120)}`).join(' ');
  const last = points[points.length - 1];
  return html`<svg class="chart" viewBox="0 0 ${width} 160" preserveAspectRatio="none" role="img" aria-label=${`Bytes saved per tools/list, last ${number(last.saved)} of ${number(allDirect)}`}>
    <polyline points=${points.length > 1 ? coords : `0,${coords.split(',')[1]} ${width},${coords.split(',')[1]}`} />
    <text x="4" y="14">${number(max)} B</text><text x="4" y="156">${points.length} tools/list · last ${time(last.at)}: ${number(last.saved)} B saved</text>
  </svg>`;
}

render(html`<${App} />`, document.getElementById('app'));
