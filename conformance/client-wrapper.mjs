// The client under test for the conformance suite's `client` scenarios, run by the
// suite as `node conformance/client-wrapper.mjs <serverUrl>`. Writes a toolshelf config with that URL
// as the one upstream, its `auth` keys from MCP_CONFORMANCE_CONTEXT (client_id, client_secret,
// private_key_pem + signing_algorithm; client-credentials scenarios get grantType
// client_credentials), a fresh state folder and the BROWSER script that follows the authorization
// server's redirects; starts toolshelf over stdio with an SDK Client, waits for the upstream's tools
// (sign-in happens in the background), and calls each with arguments filled from its schema.
// Exits 0 when every step ran; 1 otherwise. Needs a build (dist/cli.js).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const root = fileURLToPath(new URL('../', import.meta.url));
const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
/** The CIMD URL the SDK's own conformance client uses; the suite's servers accept it without fetching. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** Upper bounds (ms), wide because the machine may be loaded; a run ends as soon as it is done. */
const WAIT_FOR_TOOLS_MS = 60_000;

function authKeys() {
  const auth = { clientMetadataUrl: CLIENT_METADATA_URL, signInTimeoutMs: 45_000 };
  if (context.client_id) auth.clientId = context.client_id;
  if (context.client_secret) auth.clientSecret = context.client_secret;
  if (context.private_key_pem) Object.assign(auth, { privateKey: context.private_key_pem, signingAlgorithm: context.signing_algorithm ?? 'RS256' });
  if (scenario.startsWith('auth/client-credentials')) auth.grantType = 'client_credentials';
  return auth;
}

/** A value for each required property, by type, so a call passes the gateway's admission. */
function argumentsFor(schema) {
  const args = {};
  for (const name of schema?.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : type === 'object' ? {} : type === 'array' ? [] : 'test';
  }
  return args;
}

const dir = mkdtempSync(join(tmpdir(), 'toolshelf-conformance-client-'));
const config = join(dir, 'servers.config.json');
writeFileSync(config, JSON.stringify({ mcpServers: { conf: { url: serverUrl, exposure: 'direct', auth: authKeys() } } }, null, 2));
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [join(root, 'dist/cli.js'), '--config', config, '--log-level', 'debug'],
  env: { ...process.env, TOOLSHELF_STATE_DIR: join(dir, 'state'), BROWSER: `${process.execPath} ${join(root, 'test/fixtures/browser.mjs')}`, TOOLSHELF_START_TIMEOUT_MS: '45000' },
  stderr: 'pipe',
});
let logged = '';
transport.stderr?.on('data', (chunk) => {
  logged += chunk;
  process.stderr.write(chunk);
});

/** Resolves once the upstream is up (at start, or signed in after needing it); rejects when it failed. */
async function upstreamSettled(deadline) {
  while (Date.now() < deadline) {
    if (/connected \(conf: \d+ tools?\)|upstream "conf" is signed in/.test(logged)) return;
    if (/upstream "conf" failed to start|sign-in to upstream "conf" failed/.test(logged)) throw new Error('the upstream did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the upstream was not up in time');
}
const client = new Client({ name: 'toolshelf-conformance-client', version: '1.0.0' });
let code = 1;
try {
  await client.connect(transport);
  await upstreamSettled(Date.now() + WAIT_FOR_TOOLS_MS);
  // After a sign-in the shelf is rebuilt (debounced) before the tools show.
  let tools = [];
  for (let i = 0; i < 20; i += 1) {
    tools = (await client.listTools()).tools.filter((t) => t.name.startsWith('conf__'));
    if (tools.length > 0 || /connected \(conf: 0 tools\)/.test(logged)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const tool of tools) {
    const result = await client.callTool({ name: tool.name, arguments: argumentsFor(tool.inputSchema) });
    process.stderr.write(`wrapper: ${tool.name} → ${result.isError ? 'isError' : 'ok'}: ${JSON.stringify(result.content).slice(0, 200)}\n`);
  }
  code = 0;
} catch (error) {
  process.stderr.write(`wrapper: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  await client.close().catch(() => undefined);
}
process.exit(code);
