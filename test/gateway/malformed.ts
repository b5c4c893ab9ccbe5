/**
 * A seeded generator of hostile client messages for the fuzz test: well-formed requests with odd
 * params, JSON-RPC shape violations, mutated JSON text, random JSON values (deep, huge, odd
 * Unicode), garbage bytes, stray responses and batches. Pure: the same seed gives the same lines.
 * Lines never contain a newline, so each is one stdio message. Source: JSON-RPC 2.0 §4–§6;
 * MCP spec, Basic › Messages.
 */

/** A uniform PRNG in [0, 1) (mulberry32): small, fast, and reproducible from a 32-bit seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Methods the generator calls: real ones (with and without upstream routing) and made-up ones. */
const METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'initialize',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'notifications/initialized',
  'notifications/cancelled',
  'no/such/method',
  '',
  'tools/call/extra',
  '__proto__',
] as const;

/**
 * Tool names for tools/call. Only tools that answer at once: none that waits, asks the client for
 * sampling or elicitation (the raw client never answers), or changes the tool list.
 */
const TOOLS = ['everything__echo', 'everything__get-sum', 'tool_search', 'call_tool', 'nope', 'everything__', '__proto__', 'x'.repeat(300)];

const ODD_STRINGS = ['', ' ', '\u0000', '\ud800', '\uffff', '😀'.repeat(50), '"', '\\', '{}', 'null', '<script>', '../../etc/passwd', 'a'.repeat(20_000)];

/**
 * Yields `count` hostile lines from `seed`. Request ids are unique within a run (`fz-<n>` or
 * 10⁶ + n) except in the deep-nesting lines (`"deep"`), so a test can expect one answer per
 * well-formed request by id.
 */
export function* fuzzLines(seed: number, count: number): Generator<string> {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const int = (max: number): number => Math.floor(random() * max);
  const value = (depth: number): unknown => randomValue(random, pick, int, depth);
  const params = (method: string): unknown => (random() < 0.7 ? plausibleParams(method, random, pick, value) : value(2));
  for (let n = 0; n < count; n += 1) {
    const id = random() < 0.5 ? `fz-${n}` : 1_000_000 + n;
    const method = pick(METHODS);
    const request = { jsonrpc: '2.0', id, method, params: params(method) };
    const roll = random();
    if (roll < 0.3) yield JSON.stringify(request);
    else if (roll < 0.45) yield JSON.stringify(breakShape(request, random, value));
    else if (roll < 0.65) yield mutateText(JSON.stringify(request), random, int);
    else if (roll < 0.75) yield JSON.stringify(value(4)) ?? 'undefined';
    else if (roll < 0.8) yield deepNesting(200 + int(5000), random);
    else if (roll < 0.85) yield garbage(random, int);
    else if (roll < 0.9) yield JSON.stringify(strayResponse(id, random, value));
    else if (roll < 0.95) yield JSON.stringify(Array.from({ length: int(4) }, () => (random() < 0.5 ? request : value(2))));
    else yield JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: `never-sent-${n}`, reason: pick(ODD_STRINGS) } });
  }
}

/** Params that look right for `method`, with values that are often the wrong type or absurd. */
function plausibleParams(method: string, random: () => number, pick: <T>(items: readonly T[]) => T, value: (depth: number) => unknown): unknown {
  const odd = (): unknown => (random() < 0.5 ? pick(ODD_STRINGS) : value(1));
  switch (method) {
    case 'tools/call': {
      const args = random() < 0.6 ? { message: random() < 0.7 ? pick(ODD_STRINGS) : odd(), a: odd(), b: random() * 1e6, query: pick(ODD_STRINGS), name: pick(TOOLS) } : odd();
      return { name: random() < 0.85 ? pick(TOOLS) : odd(), arguments: args, ...(random() < 0.1 ? { _meta: { progressToken: odd() } } : {}) };
    }
    case 'tools/list':
    case 'resources/list':
    case 'prompts/list':
      return random() < 0.5 ? {} : { cursor: odd() };
    case 'resources/read':
      return { uri: random() < 0.5 ? pick(ODD_STRINGS) : `demo://resource/static/document/${Math.floor(random() * 10)}` };
    case 'prompts/get':
      return { name: pick(ODD_STRINGS), arguments: odd() };
    case 'completion/complete':
      return { ref: { type: random() < 0.5 ? 'ref/prompt' : odd(), name: pick(ODD_STRINGS) }, argument: { name: pick(ODD_STRINGS), value: odd() } };
    case 'logging/setLevel':
      return { level: random() < 0.5 ? pick(['debug', 'info', 'emergency']) : odd() };
    case 'initialize':
      return { protocolVersion: random() < 0.5 ? '2025-06-18' : odd(), capabilities: odd(), clientInfo: { name: odd(), version: odd() } };
    default:
      return random() < 0.5 ? undefined : { anything: odd() };
  }
}

/** The request with one JSON-RPC rule broken: version, id type, method type, params type, or extra members. */
function breakShape(request: Record<string, unknown>, random: () => number, value: (depth: number) => unknown): unknown {
  const broken = { ...request };
  const which = Math.floor(random() * 7);
  if (which === 0) delete broken.jsonrpc;
  else if (which === 1) broken.jsonrpc = random() < 0.5 ? '1.0' : 2;
  else if (which === 2) broken.id = [{}, [], true, 1.5, -0][Math.floor(random() * 5)];
  else if (which === 3) broken.method = value(1) ?? null;
  else if (which === 4) broken.params = random() < 0.5 ? [1, 2] : 'params';
  else if (which === 5) Object.assign(broken, { result: {}, error: { code: 'x' } });
  else delete broken.method;
  return broken;
}

/** JSON text with one edit: cut short, a character dropped, a byte inserted, or quotes changed. */
function mutateText(text: string, random: () => number, int: (max: number) => number): string {
  const at = int(text.length);
  const which = int(4);
  if (which === 0) return text.slice(0, at);
  if (which === 1) return text.slice(0, at) + text.slice(at + 1);
  if (which === 2) return text.slice(0, at) + String.fromCharCode(32 + int(95)) + text.slice(at);
  return text.replace(/"/g, random() < 0.5 ? "'" : '');
}

/** A random JSON value up to `depth` levels: primitives (odd numbers and strings), arrays, objects. */
function randomValue(random: () => number, pick: <T>(items: readonly T[]) => T, int: (max: number) => number, depth: number): unknown {
  const roll = random();
  if (depth <= 0 || roll < 0.4) {
    return pick<unknown>([null, true, false, 0, -1, 1e308, -1e-308, 2 ** 53 + 1, int(1000), random(), pick(ODD_STRINGS), String.fromCharCode(int(0xffff))]);
  }
  if (roll < 0.7) return Array.from({ length: int(5) }, () => randomValue(random, pick, int, depth - 1));
  const keys = ['jsonrpc', 'id', 'method', 'params', 'result', 'error', '__proto__', 'constructor', pick(ODD_STRINGS)];
  return Object.fromEntries(Array.from({ length: int(5) }, () => [pick(keys), randomValue(random, pick, int, depth - 1)]));
}

/** A request whose params nest `depth` arrays or objects deep. */
function deepNesting(depth: number, random: () => number): string {
  const [open, close] = random() < 0.5 ? ['[', ']'] : ['{"a":', '}'];
  return `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"everything__echo","arguments":{"message":${open.repeat(depth)}1${close.repeat(depth)}}}}`;
}

/** Printable and control characters, no newline. */
function garbage(random: () => number, int: (max: number) => number): string {
  return Array.from({ length: 1 + int(200) }, () => String.fromCharCode(random() < 0.9 ? 32 + int(95) : int(32))).join('').replace(/[\n\r]/g, ' ');
}

/** A response nobody asked for (an unknown id), as a client might send by mistake. */
function strayResponse(id: string | number, random: () => number, value: (depth: number) => unknown): unknown {
  return random() < 0.5 ? { jsonrpc: '2.0', id, result: value(2) } : { jsonrpc: '2.0', id, error: { code: -1, message: 'stray' } };
}
