/**
 * The config reload's log line on the bundled config: an edit of exposure alone (logged
 * "no server changed" although every client's tool list changed), of tool rules, of discovery, of an
 * upstream, and an edit that changes nothing. Source: docs/configuration.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { changedSettings, reloadSummary, type ServersTouched } from '../../src/config/changes.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/types.js';
import { repoRoot } from '../helpers/gateway.js';

const bundledText = readFileSync(`${repoRoot}servers.config.json`, 'utf8');
const env = { HOME: '/home/me' };

/** The bundled config after `edit` of its parsed JSON, with defaults applied. */
function bundled(edit: (raw: Record<string, any>) => void = () => {}): Config {
  const raw = JSON.parse(bundledText) as Record<string, any>;
  edit(raw);
  const parsed = parseConfig(JSON.stringify(raw), env, repoRoot);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  return parsed.value;
}

const untouched: ServersTouched = { added: [], removed: [], restarted: [] };
const line = (previous: Config, next: Config, touched = untouched): string => reloadSummary(touched, changedSettings(previous, next, touched));

describe('reload log line', () => {
  it('an exposure-only edit says no upstream was touched and names the setting, not "no server changed"', () => {
    const next = bundled((raw) => (raw.exposure = 'direct'));
    expect(line(bundled(), next)).toBe(': no upstream added, removed or restarted; settings changed: /exposure');
  });

  it('names per-tool rules and discovery settings by JSON path, in config order', () => {
    const next = bundled((raw) => {
      raw.mcpServers.files.tools.read_file.exposure = 'direct';
      raw.mcpServers.memory.tools.read_graph.keywords.push('everything you know');
      raw.discovery = { defaultLimit: 3 };
    });
    expect(changedSettings(bundled(), next, untouched)).toEqual(['/mcpServers/files/tools/read_file/exposure', '/mcpServers/memory/tools/read_graph/keywords', '/discovery/defaultLimit']);
  });

  it('settings read only at start are named as waiting for the next start (the line said they changed, and nothing did)', () => {
    const next = bundled((raw) => {
      raw.naming = { separator: '--' };
      raw.share = { idleExitMs: 1000 };
      raw.discovery = { defaultLimit: 3 };
    });
    expect(line(bundled(), next)).toBe(
      ': no upstream added, removed or restarted; settings changed: /discovery/defaultLimit, /naming/separator (at the next start), /share/idleExitMs (at the next start)',
    );
  });

  it('a setting written out at its default is no change, and an edit that changes nothing says so', () => {
    expect(line(bundled(), bundled((raw) => (raw.exposure = 'deferred')))).toBe(': no upstream added, removed or restarted; no setting changed');
  });

  it('servers started, ended or restarted are named once, their own keys not repeated as settings', () => {
    const next = bundled((raw) => {
      raw.mcpServers.everything.args = ['stdio', '--changed'];
      delete raw.mcpServers.thinking;
      raw.mcpServers.extra = { command: 'node', exposure: 'direct' };
    });
    const touched = { added: ['extra'], removed: ['thinking'], restarted: ['everything'] };
    expect(line(bundled(), next, touched)).toBe(': added extra; removed thinking; restarted everything');
    expect(line(bundled(), bundled((raw) => (raw.mcpServers.everything.exposure = 'direct')), { ...untouched, restarted: ['everything'] })).toBe(': restarted everything');
    const both = bundled((raw) => ((raw.mcpServers.everything.args = ['stdio', '-x']), (raw.exposure = 'hidden')));
    expect(line(bundled(), both, { ...untouched, restarted: ['everything'] })).toBe(': restarted everything; settings changed: /exposure');
  });

  it('names at most 8 paths, then counts the rest; a key with a newline cannot split the line', () => {
    const next = bundled((raw) => {
      raw.mcpServers.files.tools = { 'evil\nkey': { exposure: 'hidden' }, ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`tool_${i}`, { exposure: 'direct' }])) };
    });
    const text = line(bundled(), next);
    expect(text).toMatch(/settings changed: \/mcpServers\/files\/tools\/read_text_file, .*\/tool_3 and 7 more$/);
    expect(text).toContain('/mcpServers/files/tools/evil\\u000akey');
    expect(text).not.toContain('\n');
  });
});

describe('server keys in the line', () => {
  it('are printable and at most MAX_PATHS_NAMED of each kind: a key with a newline split the line, 500 added were all named', () => {
    const added = Array.from({ length: 500 }, (_, i) => `s${i}`);
    const text = reloadSummary({ added: ['evil\nconfig reloaded: nothing\u001b[2J', 'a/b', ...added], removed: ['x'.repeat(2000)], restarted: [] }, []);
    expect(text).not.toMatch(/[\n\u001b]/);
    expect(text).toContain('added evil\\u000aconfig reloaded: nothing\\u001b[2J, a~1b, s0, s1, s2, s3, s4, s5 and 494 more');
    expect(text).toContain(`removed ${'x'.repeat(80)}…`);
    expect(text.length).toBeLessThan(400);
  });
});
