/**
 * A qualified name keeps its meaning for the life of the process, through the built
 * CLI with the SDK Client over stdio and Streamable HTTP: an upstream re-list (list_changed) that adds
 * `get.item` beside `get_item`, or a second `prefix: false` server adding `deploy`, leaves the old name
 * on the old tool and gives the later tool the suffix, with a warning; the same collision at start is
 * still refused (docs/configuration.md). Fixture: test/fixtures/servers/collider.mjs.
 */
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { cliPath, fixture, textOf, writeConfig } from '../helpers/gateway.js';
import { nextListChanged, overEachTransport } from '../helpers/transports.js';

const server = (label: string, initial: string[], added: string[], extra: Record<string, unknown> = {}) => ({
  command: 'node',
  args: [fixture('collider.mjs'), label, initial.join(','), added.join(',')],
  exposure: 'direct',
  ...extra,
});

// "alpha" sorts before "zulu" and "get.item" before "get_item": without the names given before, the
// sorted re-list would hand both old names to the later tools.
const configPath = (): string =>
  writeConfig({
    mcpServers: {
      shop: server('shop', ['get_item'], ['get.item']),
      zulu: server('zulu', ['deploy'], [], { prefix: false }),
      alpha: server('alpha', [], ['deploy'], { prefix: false }),
    },
  });

/** Calls the upstream's grow tool and resolves with the names listed after the list_changed it causes. */
async function grow(client: Client, trigger: string): Promise<string[]> {
  await client.listTools(); // list_changed goes to clients that have listed (docs/tools.md).
  const changed = nextListChanged(client);
  await client.callTool({ name: trigger, arguments: {} });
  await changed;
  return (await client.listTools()).tools.map((t) => t.name);
}

const said = async (client: Client, name: string): Promise<string> => textOf(await client.callTool({ name, arguments: {} }));

overEachTransport(configPath, (gateway) => {
  it('a re-list adding get.item beside get_item: shop__get_item still reaches get_item, the later tool is suffixed', async () => {
    const { client } = gateway();
    expect(await said(client, 'shop__get_item')).toBe('shop:get_item');
    const names = await grow(client, 'shop__grow_shop');
    const suffixed = names.filter((n) => /^shop__get_item_[0-9a-f]{6}$/.test(n));
    expect(names).toContain('shop__get_item');
    expect(suffixed).toHaveLength(1);
    expect(await said(client, 'shop__get_item')).toBe('shop:get_item');
    expect(await said(client, suffixed[0] as string)).toBe('shop:get.item');
  });

  it('a second prefix: false server adding deploy: deploy still reaches zulu, alpha’s is suffixed with a warning', async () => {
    const { client, stderr } = gateway();
    expect(await said(client, 'deploy')).toBe('zulu:deploy');
    const names = await grow(client, 'grow_alpha');
    const suffixed = names.filter((n) => /^deploy_[0-9a-f]{6}$/.test(n));
    expect(suffixed).toHaveLength(1);
    expect(await said(client, 'deploy')).toBe('zulu:deploy');
    expect(await said(client, suffixed[0] as string)).toBe('alpha:deploy');
    expect(stderr.filter((l) => l.includes(`name "deploy" stays with server "zulu" (tool "deploy"); server "alpha"'s tool "deploy" is served as "${suffixed[0]}"`))).toHaveLength(1);
  });
});

it('the same prefix: false collision present at start is refused, naming both servers', async () => {
  const path = writeConfig({ mcpServers: { zulu: server('zulu', ['deploy'], [], { prefix: false }), alpha: server('alpha', ['deploy'], [], { prefix: false }) } });
  const child = spawn(process.execPath, [cliPath, 'inspect', '--config', path], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code).not.toBe(0);
  expect(stderr).toContain('tool name collision with "prefix": false: "deploy" from servers "alpha" and "zulu"');
}, 30_000);
