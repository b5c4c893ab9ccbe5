/**
 * Cached era verdicts expire: through the built CLI with a real SDK Client, an
 * upstream that speaks both eras (the v2 `notifier.mjs` fixture, each `server/discover` counted) whose
 * catalogue cache record says `legacy`. While the verdict is fresh a start connects in 2025 with no
 * probe; once it is over 7 days old, or the server reports another version than when it was probed,
 * the start probes, finds 2026-07-28 and records the new verdict with a new stamp.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ERA_VERDICT_MAX_AGE_MS } from '../../src/upstream/eraVerdict.js';
import { fixture, startStdio, tempDir, textOf, writeConfig, type Connected } from '../helpers/gateway.js';

const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

type Record_ = { server: string; era?: string; eraCheckedAt?: string; eraServerInfo?: { name: string; version: string }; discover?: unknown };

/** The `notifier` record under `<state>/catalog/` and its path. */
function record(): { path: string; value: Record_ } {
  const folder = join(process.env.TOOLSHELF_STATE_DIR!, 'catalog');
  for (const name of readdirSync(folder).filter((f) => f.startsWith('upstream-'))) {
    const value = JSON.parse(readFileSync(join(folder, name), 'utf8')) as Record_;
    if (value.server === 'notifier') return { path: join(folder, name), value };
  }
  throw new Error('no catalogue record for notifier');
}

/** Rewrites the record as a legacy verdict probed `ageMs` ago from a server of `version`. */
function makeLegacy(ageMs: number, version: string): void {
  const { path, value } = record();
  const { discover: _discover, ...rest } = value;
  writeFileSync(path, JSON.stringify({ ...rest, era: 'legacy', eraCheckedAt: new Date(Date.now() - ageMs).toISOString(), eraServerInfo: { name: 'notifier', version } }));
}

/** Starts a gateway, calls the notifier once (so its start, probe included, is over) and closes it. */
async function startAndCall(path: string): Promise<void> {
  const gateway = await startStdio(path, ['--no-share']);
  open.push(gateway);
  expect(textOf(await gateway.client.callTool({ name: 'notifier__chatty', arguments: { text: 'hi' } }))).toBe('said hi');
  await gateway.close();
  open.length = 0;
}

describe('cached era verdicts expire', () => {
  it('a fresh legacy verdict pays no probe; a verdict over 7 days old, or one from another server version, is probed again and replaced', async () => {
    const dir = tempDir();
    const discoverLog = join(dir, 'discover.log');
    const versionFile = join(dir, 'version');
    writeFileSync(versionFile, '1.0.0');
    const path = writeConfig(
      { mcpServers: { notifier: { command: 'node', args: [fixture('notifier.mjs'), '--version-file', versionFile], env: { DISCOVER_LOG: discoverLog }, exposure: 'direct' } } },
      dir,
    );
    const probes = (): number => (existsSync(discoverLog) ? readFileSync(discoverLog, 'utf8').split('\n').filter(Boolean).length : 0);

    await startAndCall(path);
    expect(probes()).toBe(1);
    expect(record().value).toMatchObject({ era: 'modern', eraServerInfo: { name: 'notifier', version: '1.0.0' } });
    const probedAt = Date.parse(record().value.eraCheckedAt!);
    expect(Date.now() - probedAt).toBeLessThan(ERA_VERDICT_MAX_AGE_MS);

    // The server as it was a day ago, before it gained 2026-07-28: fresh, so trusted.
    makeLegacy(24 * 3600_000, '1.0.0');
    await startAndCall(path);
    expect(probes()).toBe(1);
    expect(record().value.era).toBe('legacy');
    expect(Date.now() - Date.parse(record().value.eraCheckedAt!)).toBeGreaterThanOrEqual(24 * 3600_000 - 60_000);

    // The same verdict a week and a minute old: probed again, found modern, stamped now.
    makeLegacy(ERA_VERDICT_MAX_AGE_MS + 60_000, '1.0.0');
    await startAndCall(path);
    expect(probes()).toBe(2);
    expect(record().value.era).toBe('modern');
    expect(Date.now() - Date.parse(record().value.eraCheckedAt!)).toBeLessThan(10 * 60_000);

    // A fresh legacy verdict probed when the server was 0.9.0; it now says 1.0.0: probed at once.
    makeLegacy(3600_000, '0.9.0');
    await startAndCall(path);
    expect(probes()).toBe(3);
    expect(record().value).toMatchObject({ era: 'modern', eraServerInfo: { version: '1.0.0' } });

    // And the modern verdict now cached is trusted: no probe.
    await startAndCall(path);
    expect(probes()).toBe(3);
  });
});
