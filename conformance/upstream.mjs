// The upstream toolshelf fronts for the conformance run: a stdio MCP server with exactly the tools,
// resources, prompts, completion and logging that @modelcontextprotocol/conformance's server scenarios
// call by name (test_simple_text, test://static-text, test_simple_prompt, …), written from the
// requirements each scenario prints. server-everything implements none of those names, so it runs
// beside this one (see servers.config.json) rather than instead of it.
// Over stdio by default (how toolshelf starts it); with `--http` it serves Streamable HTTP on a free
// 127.0.0.1 port instead, so the 0.2.x suite can also run directly against it
// (scripts/conformance-next.mjs): 2025-era requests get sessions (sampling, elicitation and the GET
// stream need them), 2026-07-28 requests go to the SDK's stateless handler. Prints `listening <url>`
// on stderr; ends on SIGTERM or when stdin closes.
// Source: MCP spec 2025-06-18 / 2025-11-25, Server features (Tools, Resources, Prompts), Utilities.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import {
  Server,
  ProtocolError,
  ProtocolErrorCode,
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  hostHeaderValidationResponse,
  inputRequired,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import { sendWebResponse, webRequest } from '../dist/gateway/fronts/webBridge.js';
import { inputRequiredPrompt, inputRequiredTools, sample, text, verifyState } from './inputRequired.mjs';

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A 16-sample, 8 kHz, 8-bit mono WAV of silence. */
const WAV = (() => {
  const samples = 16;
  const wav = Buffer.alloc(44 + samples, 128);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(samples, 40);
  return wav.toString('base64');
})();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const noArgs = { type: 'object', properties: {} };

const elicitSchemas = {
  test_elicitation: {
    type: 'object',
    properties: { username: { type: 'string', description: 'Your user name' }, email: { type: 'string', description: 'Your email address' } },
    required: ['username', 'email'],
  },
  test_elicitation_sep1034_defaults: {
    type: 'object',
    properties: {
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      score: { type: 'number', default: 95.5 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', default: true },
    },
  },
  test_elicitation_sep1330_enums: {
    type: 'object',
    properties: {
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }] },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }] } },
    },
  },
};

/** Asks the client for input through elicitation/create; the answer comes back as text. */
async function elicit(server, name, message) {
  const answer = await server.elicitInput({ message, requestedSchema: elicitSchemas[name] });
  return { content: [text(`Elicitation ${answer.action}: ${JSON.stringify(answer.content ?? {})}`)] };
}

/** name → [description, inputSchema, run(args, ctx, server)]. */
const tools = {
  test_simple_text: ['Returns one text block.', noArgs, () => ({ content: [text('This is a simple text response for testing.')] })],
  test_image_content: ['Returns a PNG image.', noArgs, () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] })],
  test_audio_content: ['Returns a WAV clip.', noArgs, () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] })],
  test_embedded_resource: [
    'Returns an embedded text resource.',
    noArgs,
    () => ({ content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] }),
  ],
  test_multiple_content_types: [
    'Returns text, an image and an embedded resource.',
    noArgs,
    () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    }),
  ],
  test_tool_with_logging: [
    'Sends three info log messages while it runs.',
    noArgs,
    async (_args, _ctx, server) => {
      for (const [i, data] of ['Tool execution started', 'Tool processing data', 'Tool execution completed'].entries()) {
        if (i > 0) await sleep(50);
        await server.sendLoggingMessage({ level: 'info', data });
      }
      return { content: [text('Tool with logging executed successfully')] };
    },
  ],
  test_error_handling: ['Always fails.', noArgs, () => ({ isError: true, content: [text('This tool intentionally returns an error for testing')] })],
  test_tool_with_progress: [
    'Reports progress 0, 50 and 100 of 100.',
    noArgs,
    async (_args, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
      }
      return { content: [text(`Progress reported for token ${String(token)}`)] };
    },
  ],
  test_sampling: [
    'Asks the client to sample a reply to the prompt.',
    { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    async (args, _ctx, server) => {
      const reply = await server.createMessage({ messages: [{ role: 'user', content: text(args.prompt) }], maxTokens: 100 });
      return { content: [text(`LLM response: ${reply.content.type === 'text' ? reply.content.text : reply.content.type}`)] };
    },
  ],
  test_elicitation: [
    'Asks the client for a user name and email.',
    { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    (args, _ctx, server) => elicit(server, 'test_elicitation', args.message),
  ],
  test_elicitation_sep1034_defaults: ['Elicits one field of each primitive type, each with a default.', noArgs, (_args, _ctx, server) => elicit(server, 'test_elicitation_sep1034_defaults', 'Accept the defaults')],
  test_elicitation_sep1330_enums: ['Elicits the five enum schema variants.', noArgs, (_args, _ctx, server) => elicit(server, 'test_elicitation_sep1330_enums', 'Pick options')],
  // SEP-1699 asks the server to close the POST stream mid-call; an upstream behind toolshelf has no
  // stream to close, so this only takes a moment, and the scenario judges toolshelf's own stream.
  test_reconnection: ['Answers after 200 ms.', noArgs, async () => (await sleep(200), { content: [text('Reconnection test completed')] })],
  ...inputRequiredTools,
  // SEP-2575: needs sampling; the SDK refuses the call with -32021 when the client did not declare it.
  test_missing_capability: [
    'Asks the client to sample a word (needs the sampling capability).',
    noArgs,
    (_args, ctx) =>
      ctx.mcpReq.inputResponses?.word
        ? { content: [text('Sampled a word')] }
        : inputRequired({ inputRequests: { word: sample('Say a word', 10) } }),
  ],
  json_schema_2020_12_tool: [
    'Takes a name and an address (JSON Schema 2020-12: $defs, $anchor, allOf/anyOf, if/then/else).',
    {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'address', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
      // SEP-2106 (2026-07-28) checks that composition and conditional keywords survive listing.
      allOf: [{ anyOf: [{ required: ['name'] }, { required: ['address'] }] }],
      if: { properties: { name: { const: 'home' } }, required: ['name'] },
      then: { required: ['address'] },
      else: {},
    },
    (args) => ({ content: [text(`Received ${JSON.stringify(args)}`)] }),
  ],
};

const resources = {
  'test://static-text': { name: 'static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
  'test://static-binary': { name: 'static-binary', mimeType: 'image/png', blob: PNG },
  'test://watched-resource': { name: 'watched-resource', mimeType: 'text/plain', text: 'A resource clients may subscribe to.' },
};
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

/** name → [description, arguments, messages(args, ctx)]. */
const prompts = {
  test_simple_prompt: ['A prompt without arguments.', [], () => [{ role: 'user', content: text('This is a simple prompt for testing.') }]],
  test_prompt_with_arguments: [
    'A prompt that uses two arguments.',
    [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
    (args) => [{ role: 'user', content: text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`) }],
  ],
  test_prompt_with_embedded_resource: [
    'A prompt that embeds a resource.',
    [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    (args) => [
      { role: 'user', content: { type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  ],
  test_input_required_result_prompt: inputRequiredPrompt,
  test_prompt_with_image: [
    'A prompt with an image.',
    [],
    () => [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  ],
};

const SUGGESTIONS = ['paris', 'park', 'party', 'test', 'testing'];
/** A fresh upstream server with every handler the scenarios call (one per stdio connection or HTTP session/request). */
function buildServer() {
  const server = new Server(
    { name: 'conformance-upstream', version: '1.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {} }, requestState: { verify: verifyState } },
  );
  server.setRequestHandler('tools/list', () => ({
    tools: Object.entries(tools).map(([name, [description, inputSchema]]) => ({ name, description, inputSchema })),
  }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const tool = tools[request.params.name];
    if (!tool) return { isError: true, content: [text(`Unknown tool ${request.params.name}`)] };
    try {
      return await tool[2](request.params.arguments ?? {}, ctx, server);
    } catch (error) {
      return { isError: true, content: [text(`${request.params.name} failed: ${error.message}`)] };
    }
  });

  server.setRequestHandler('resources/list', () => ({
    resources: Object.entries(resources).map(([uri, { name, mimeType }]) => ({ uri, name, mimeType, description: `The ${name} test resource` })),
  }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template-data', mimeType: 'application/json', description: 'Data for one id' }],
  }));
  server.setRequestHandler('resources/read', (request) => {
    const { uri } = request.params;
    const fixed = resources[uri];
    if (fixed) return { contents: [{ uri, mimeType: fixed.mimeType, ...(fixed.text ? { text: fixed.text } : { blob: fixed.blob }) }] };
    const id = TEMPLATE.exec(uri)?.[1];
    if (id) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
    throw new ProtocolError(-32002, `Resource not found: ${uri}`);
  });
  server.setRequestHandler('resources/subscribe', () => ({}));
  server.setRequestHandler('resources/unsubscribe', () => ({}));

  server.setRequestHandler('prompts/list', () => ({
    prompts: Object.entries(prompts).map(([name, [description, args]]) => ({ name, description, ...(args.length ? { arguments: args } : {}) })),
  }));
  server.setRequestHandler('prompts/get', (request, ctx) => {
    const prompt = prompts[request.params.name];
    if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    // A prompt gives its messages, or an input_required result while it still needs an answer.
    const messages = prompt[2](request.params.arguments ?? {}, ctx);
    return Array.isArray(messages) ? { messages } : messages;
  });

  server.setRequestHandler('completion/complete', (request) => {
    const values = SUGGESTIONS.filter((s) => s.startsWith(String(request.params.argument.value ?? '')));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

/** Serves Streamable HTTP on 127.0.0.1 (free port): sessionful for 2025-era requests, stateless for 2026-07-28. */
function serveHttp() {
  const sessions = new Map();
  const modern = createMcpHandler(buildServer, { legacy: 'reject' });
  async function legacy(request) {
    const id = request.headers.get('mcp-session-id');
    if (id) return sessions.get(id)?.handleRequest(request) ?? new Response('unknown session', { status: 404 });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await buildServer().connect(transport);
    return transport.handleRequest(request);
  }
  const http = createServer((req, res) => {
    const request = webRequest(req, res, true);
    // DNS-rebinding guard in front of the handler, as the SDK's serving guide composes it.
    const rejected = hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
    (rejected ? Promise.resolve(rejected) : isLegacyRequest(request).then((isLegacy) => (isLegacy ? legacy(request) : modern.fetch(request))))
      .then((response) => sendWebResponse(response, res))
      .catch((error) => {
        process.stderr.write(`conformance upstream: ${error.stack}\n`);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  http.listen(0, '127.0.0.1', () => process.stderr.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`));
  const stop = () => {
    http.closeAllConnections();
    http.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.stdin.on('close', stop).resume();
}

if (process.argv.includes('--http')) serveHttp();
else await buildServer().connect(new StdioServerTransport());
