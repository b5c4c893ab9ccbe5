/**
 * Resources, prompts, completion and logging through the gateway from two copies of server-everything:
 * aggregated with collision-free URIs and prompt names, and routed back. Source: docs/tools.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, serverEntry, startStdio, writeConfig, type Connected } from '../helpers/gateway.js';

describe('resources, prompts, completion and logging pass-through', () => {
  let gw: Connected;
  beforeAll(async () => {
    gw = await startStdio(
      writeConfig({
        mcpServers: {
          ev1: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
          ev2: { command: 'node', args: [serverEntry('everything'), 'stdio'] },
          think: { command: 'node', args: [serverEntry('sequential-thinking')] },
        },
      }),
    );
  });
  afterAll(() => gw.close());

  it('advertises only the capabilities some upstream has', () => {
    const caps = gw.client.getServerCapabilities() ?? {};
    expect(caps).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true, subscribe: true }, prompts: { listChanged: true }, completions: {}, logging: {} });
    expect(caps).not.toHaveProperty('tasks');
  });

  it('lists resources from both upstreams; the second copy of each URI is rewritten and reads route back', async () => {
    const { resources } = await gw.client.listResources();
    expect(resources).toHaveLength(14);
    const uris = resources.map((r) => r.uri);
    expect(new Set(uris).size).toBe(14);
    const plain = uris.find((u) => u.startsWith('demo://')) as string;
    const rewritten = uris.find((u) => u.startsWith('toolshelf://ev2/')) as string;
    expect(rewritten).toBeDefined();
    const a = await gw.client.readResource({ uri: plain });
    const b = await gw.client.readResource({ uri: rewritten });
    expect(a.contents[0]?.uri).toBe(plain);
    expect(b.contents[0]?.uri).toBe(rewritten);
    const original = decodeURIComponent(rewritten.slice('toolshelf://ev2/'.length));
    const sameFromEv1 = await gw.client.readResource({ uri: original });
    expect(b.contents[0]?.text).toBe(sameFromEv1.contents[0]?.text);
    expect(a.contents[0]?.text).toBeDefined();
  });

  it('routes a templated URI to an upstream that declares the template', async () => {
    const { resourceTemplates } = await gw.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('demo://resource/dynamic/text/{resourceId}');
    const read = await gw.client.readResource({ uri: 'demo://resource/dynamic/text/3' });
    expect(read.contents[0]?.uri).toBe('demo://resource/dynamic/text/3');
  });

  it('an unknown resource URI is a JSON-RPC error, not a crash', async () => {
    await expect(gw.client.readResource({ uri: 'nowhere://x' })).rejects.toThrow(/Resource not found/);
  });

  it('lists prompts with qualified names and gets one by that name', async () => {
    const { prompts } = await gw.client.listPrompts();
    const names = prompts.map((p) => p.name);
    expect(names).toContain('ev1__args-prompt');
    expect(names).toContain('ev2__args-prompt');
    const got = await gw.client.getPrompt({ name: 'ev2__args-prompt', arguments: { city: 'Lyon', state: 'Rhône' } });
    expect(JSON.stringify(got.messages)).toContain('Lyon');
    await expect(gw.client.getPrompt({ name: 'args-prompt' })).rejects.toThrow(/Unknown prompt/);
  });

  it('routes completion/complete for a prompt argument', async () => {
    const done = await gw.client.complete({ ref: { type: 'ref/prompt', name: 'ev1__completable-prompt' }, argument: { name: 'department', value: 'E' } });
    expect(done.completion.values.length).toBeGreaterThan(0);
  });

  it('forwards logging/setLevel', async () => {
    await expect(gw.client.setLoggingLevel('error')).resolves.toBeDefined();
  });
});

describe('a resource too large for a stdio client', () => {
  it('is answered with a JSON-RPC error and the session goes on; smaller ones pass', async () => {
    const gw = await startStdio(writeConfig({ mcpServers: { big: { command: 'node', args: [fixture('bigResource.mjs')] } } }));
    try {
      await expect(gw.client.readResource({ uri: 'big://mb/12' })).rejects.toThrow(/12\.0 MiB, more than this client accepts over stdio/);
      const small = await gw.client.readResource({ uri: 'big://mb/1' });
      expect(small.contents[0]?.text).toHaveLength(1024 * 1024);
    } finally {
      await gw.close();
    }
  });
});
