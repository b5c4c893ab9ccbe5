/**
 * An upstream that answers a call with something that is no JSON-RPC result (`_meta: null`, a null or
 * a string result) through the built CLI with the SDK Client: each call gets an isError at once, not
 * a wait for the client's own timeout, and the upstream goes on serving. Fixture: badResults.mjs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, startStdio, textOf, writeConfig, type Connected } from '../helpers/gateway.js';

describe('an upstream answering with malformed results', () => {
  let gw: Connected;
  beforeAll(async () => {
    gw = await startStdio(writeConfig({ mcpServers: { bad: { command: 'node', args: [fixture('badResults.mjs')], exposure: 'direct' } } }));
  });
  afterAll(async () => gw?.close());

  it('each call is answered with an isError long before the client would give up', async () => {
    for (const name of ['meta_null', 'null_result', 'string_result']) {
      // The client's timeout is 60 s by default; 20 s here only bounds a failure, it measures nothing.
      const result = await gw.client.callTool({ name: `bad__${name}`, arguments: {} }, { timeout: 20_000 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('not a valid JSON-RPC response');
    }
    expect(textOf(await gw.client.callTool({ name: 'bad__ok', arguments: {} }))).toBe('ok');
  });
});
