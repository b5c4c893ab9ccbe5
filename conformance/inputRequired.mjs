// The SEP-2322 multi-round-trip tools and prompt of the conformance fixture (conformance/upstream.mjs),
// with the names and input keys the 0.2.x suite's input-required-result-* scenarios call: each round
// returns an input_required result until the answers arrive. On a 2025-era connection the SDK's legacy
// shim turns the same results into server→client requests, so toolshelf's legacy leg to this fixture
// exercises the cross-era mapping. Request state is integrity-protected (HMAC-SHA256).
// Source: MCP spec 2026-07-28, basic/patterns/mrtr; SDK v2 docs/servers/input-required.md.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inputRequired } from '@modelcontextprotocol/server';

export const text = (value) => ({ type: 'text', text: value });
const noArgs = { type: 'object', properties: {} };

/** An elicitation input request for a flat form of `properties`. */
const ask = (message, properties, required) => inputRequired.elicit({ message, requestedSchema: { type: 'object', properties, required } });
const askName = (message) => ask(message, { name: { type: 'string' } }, ['name']);
/** A sampling input request for one user message. */
export const sample = (prompt, maxTokens) => inputRequired.createMessage({ messages: [{ role: 'user', content: text(prompt) }], maxTokens });
/** The client's answer under `key` this round (elicitation answers only when accepted), or undefined. */
function answered(ctx, key) {
  const response = ctx.mcpReq.inputResponses?.[key];
  if (!response || typeof response !== 'object') return undefined;
  return 'action' in response && response.action !== 'accept' ? undefined : response;
}
/** The capabilities the client declared: the request's _meta envelope (2026-07-28) or the handshake. */
function clientCapabilities(ctx, server) {
  const envelope = ctx.mcpReq.envelope ?? {};
  return envelope['io.modelcontextprotocol/clientCapabilities'] ?? envelope.clientCapabilities ?? server.getClientCapabilities() ?? {};
}

/** HMAC key for request state: per process, so state from another run is refused too. */
const STATE_KEY = randomBytes(32);
const mac = (payload) => createHmac('sha256', STATE_KEY).update(payload).digest('base64url');
/** Integrity-protected request state: base64url JSON, a dot, its HMAC-SHA256 (spec basic/patterns/mrtr). */
const sign = (value) => {
  const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${payload}.${mac(payload)}`;
};
/** The decoded state; throws when the MAC does not match (the SDK then answers -32602). */
export function verifyState(state) {
  const [payload = '', tag = ''] = state.split('.');
  const expected = Buffer.from(mac(payload));
  if (Buffer.byteLength(tag) !== expected.length || !timingSafeEqual(Buffer.from(tag), expected)) throw new Error('requestState MAC mismatch');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}

/** name → [description, inputSchema, run(args, ctx, server)], as in upstream.mjs's tool table. */
export const inputRequiredTools = {
  test_input_required_result_elicitation: [
    'Asks for your name, then greets you.',
    noArgs,
    (_args, ctx) => {
      const name = answered(ctx, 'user_name')?.content?.name;
      return name ? { content: [text(`Hello, ${name}!`)] } : inputRequired({ inputRequests: { user_name: askName('What is your name?') } });
    },
  ],
  test_input_required_result_sampling: [
    'Asks the client to sample the capital of France.',
    noArgs,
    (_args, ctx) => {
      const reply = answered(ctx, 'capital_question');
      return reply ? { content: [text(`Sampled: ${reply.content?.text ?? ''}`)] } : inputRequired({ inputRequests: { capital_question: sample('What is the capital of France?', 100) } });
    },
  ],
  test_input_required_result_list_roots: [
    "Asks for the client's roots.",
    noArgs,
    (_args, ctx) => {
      const roots = answered(ctx, 'client_roots')?.roots;
      return roots ? { content: [text(`Roots: ${roots.map((r) => r.uri).join(', ')}`)] } : inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
    },
  ],
  test_input_required_result_request_state: [
    'Asks for a confirmation, carrying signed request state.',
    noArgs,
    (_args, ctx) => {
      if (ctx.mcpReq.requestState()?.step === 'confirm' && answered(ctx, 'confirm')) return { content: [text('Confirmed; state-ok')] };
      return inputRequired({ inputRequests: { confirm: ask('Please confirm', { ok: { type: 'boolean' } }, ['ok']) }, requestState: sign({ step: 'confirm' }) });
    },
  ],
  test_input_required_result_multiple_inputs: [
    'Asks for a name, a sampled greeting and the roots at once.',
    noArgs,
    (_args, ctx) => {
      const keys = ['user_name', 'greeting', 'client_roots'];
      if (ctx.mcpReq.requestState()?.step === 'all' && keys.every((k) => answered(ctx, k))) return { content: [text(`Got ${keys.join(', ')}`)] };
      return inputRequired({
        inputRequests: { user_name: askName('What is your name?'), greeting: sample('Generate a greeting', 50), client_roots: inputRequired.listRoots() },
        requestState: sign({ step: 'all' }),
      });
    },
  ],
  test_input_required_result_multi_round: [
    'Asks for a name, then a colour, in two rounds.',
    noArgs,
    (_args, ctx) => {
      const state = ctx.mcpReq.requestState();
      const color = answered(ctx, 'step2')?.content?.color;
      if (state?.step === 2 && color) return { content: [text(`${state.name} likes ${color}`)] };
      const name = answered(ctx, 'step1')?.content?.name;
      if (state?.step === 1 && name) {
        return inputRequired({ inputRequests: { step2: ask('Step 2: What is your favorite color?', { color: { type: 'string' } }, ['color']) }, requestState: sign({ step: 2, name }) });
      }
      return inputRequired({ inputRequests: { step1: askName('Step 1: What is your name?') }, requestState: sign({ step: 1 }) });
    },
  ],
  test_input_required_result_tampered_state: [
    'Carries signed request state; a tampered state is refused (-32602).',
    noArgs,
    (_args, ctx) =>
      ctx.mcpReq.requestState()?.step === 'sealed' && answered(ctx, 'confirm')
        ? { content: [text('State verified')] }
        : inputRequired({ inputRequests: { confirm: ask('Please confirm', { ok: { type: 'boolean' } }, ['ok']) }, requestState: sign({ step: 'sealed' }) }),
  ],
  test_input_required_result_capabilities: [
    'Asks only for what the client declared it can answer (sampling, elicitation).',
    noArgs,
    (_args, ctx, server) => {
      if (answered(ctx, 'greeting') || answered(ctx, 'user_name')) return { content: [text('Thanks')] };
      const capabilities = clientCapabilities(ctx, server);
      const inputRequests = {
        ...(capabilities.sampling ? { greeting: sample('Generate a greeting', 50) } : {}),
        ...(capabilities.elicitation ? { user_name: askName('What is your name?') } : {}),
      };
      return Object.keys(inputRequests).length ? inputRequired({ inputRequests }) : { content: [text('Nothing to ask this client')] };
    },
  ],
};

/** [description, arguments, messages(args, ctx)]: messages, or input_required until the context arrives. */
export const inputRequiredPrompt = [
    'A prompt that first asks the user for its context (SEP-2322).',
    [],
    (_args, ctx) => {
      const context = answered(ctx, 'user_context')?.content?.context;
      if (!context) return inputRequired({ inputRequests: { user_context: ask('What context should the prompt use?', { context: { type: 'string' } }, ['context']) } });
      return [{ role: 'user', content: text(`Use this context: ${context}`) }];
    },
  ];
