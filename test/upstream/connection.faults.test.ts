/**
 * UpstreamConnection and UpstreamPool on a fake clock against upstream faults: a first
 * start that stalls (it ends at the start timeout and the late success is announced), close() while
 * starting, a configuration problem logged once however often it is retried, a log flood held to
 * 50 a second, and a listing with many dropped tools logged in a few lines.
 * Source: docs/robustness.md.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../src/trace/log.js';
import { UpstreamConnection } from '../../src/upstream/connection.js';
import { UpstreamPool } from '../../src/upstream/pool.js';
import { fakeServer, FakeUpstream, tool } from './fakeUpstream.js';

let fake: FakeUpstream;
let closeAll: (() => Promise<void>) | undefined;

beforeEach(() => {
  vi.useFakeTimers();
  fake = new FakeUpstream();
});
afterEach(async () => {
  await closeAll?.();
  closeAll = undefined;
  vi.useRealTimers();
});

/** A logger that keeps `level: message` lines. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

async function started(options = fake.options()): Promise<UpstreamConnection> {
  const conn = new UpstreamConnection('up', fakeServer(), options);
  closeAll = () => conn.close();
  const start = conn.start();
  await vi.advanceTimersByTimeAsync(0);
  await start;
  return conn;
}

describe('a first start that completes late', () => {
  it('a stalled start ends at the start timeout; the pool’s start resolves; the tools of a later success are announced', async () => {
    fake.plan.push('stall');
    const changed: string[] = [];
    const pool = await UpstreamPool.open({ up: fakeServer() }, fake.options({ startTimeoutMs: 2000, onToolsChanged: (key) => changed.push(key) }));
    closeAll = () => pool.close();
    let done = false;
    const start = pool.start().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(1999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await start;
    expect(pool.summary()).toEqual([{ key: 'up', status: 'failed', tools: 0, error: 'did not finish starting within 2 s (startTimeoutMs)', lazy: false }]);
    expect(changed).toEqual([]);
    await vi.advanceTimersByTimeAsync(375);
    expect(pool.summary()[0]?.status).toBe('ready');
    expect(changed).toEqual(['up']);
    expect(pool.toolsByServer().get('up')?.map((t) => t.name)).toEqual(['echo']);
  });

  it('close() during start() ends the start at once and nothing is retried', async () => {
    for (const mode of ['stall', 'hang'] as const) {
      fake.plan.push(mode);
      const pool = await UpstreamPool.open({ up: fakeServer() }, fake.options({ startTimeoutMs: 30_000 }));
      let done = false;
      const start = pool.start().then(() => (done = true));
      await vi.advanceTimersByTimeAsync(100);
      await pool.close();
      await vi.advanceTimersByTimeAsync(0);
      expect(done, mode).toBe(true);
      await start;
      expect(pool.summary()[0]?.status).toBe('closed');
    }
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fake.attempts).toHaveLength(2);
  });
});

describe('a tool declaration too deep to serialise', () => {
  it('neither fails the start nor a re-list; each counts as a change', async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i++) schema = { type: 'object', properties: { next: schema } };
    fake.tools = [tool('plain'), { name: 'abyss', inputSchema: { type: 'object', properties: { root: schema } } }];
    const changed: string[] = [];
    const conn = await started(fake.options({ onToolsChanged: (key) => changed.push(key) }));
    expect(conn.status).toBe('ready');
    expect(conn.tools.map((t) => t.name)).toEqual(['plain', 'abyss']);
    await fake.announce();
    await vi.advanceTimersByTimeAsync(200);
    expect(changed).toEqual(['up', 'up']);
  });
});

describe('configuration problems', () => {
  it('are retried with backoff but logged once while the cause stays the same', async () => {
    const { logger, lines } = recordingLogger();
    fake.plan.push('misconfigured', 'misconfigured', 'misconfigured');
    const conn = await started(fake.options({ logger }));
    expect(conn.lastError).toBe('working folder /nonexistent/dir does not exist');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fake.attempts).toHaveLength(4);
    expect(conn.status).toBe('ready');
    const failures = lines.filter((l) => l.includes('failed to start'));
    expect(failures).toEqual([
      'error: upstream "up" failed to start: working folder /nonexistent/dir does not exist (retried with backoff; logged again only if the cause changes)',
      'debug: upstream "up" failed to start: working folder /nonexistent/dir does not exist',
      'debug: upstream "up" failed to start: working folder /nonexistent/dir does not exist',
    ]);
    expect(lines.filter((l) => l.includes('will be retried')).map((l) => l.slice(0, l.indexOf(':')))).toEqual(['info', 'debug', 'debug']);
  });

  it('any start failure is logged again only when its cause changes', async () => {
    const { logger, lines } = recordingLogger();
    fake.plan.push('fail', 'fail', 'misconfigured', 'fail');
    await started(fake.options({ logger }));
    await vi.advanceTimersByTimeAsync(20_000);
    const failures = lines.filter((l) => l.includes('failed to start'));
    expect(failures.map((l) => l.slice(0, l.indexOf(':')))).toEqual(['error', 'debug', 'warn', 'warn']);
    expect(failures[1]).toBe('debug: upstream "up" failed to start: spawn fake ENOENT');
  });
});

describe('floods from one upstream', () => {
  it('passes 50 log messages a second to onNotification and reports the drops', async () => {
    const got: { method: string; params?: Record<string, unknown> }[] = [];
    await started(fake.options({ onNotification: (_key, n) => got.push(n) }));
    await fake.log(500);
    await vi.advanceTimersByTimeAsync(0);
    expect(got).toHaveLength(50);
    await vi.advanceTimersByTimeAsync(1000);
    expect(got.at(-1)).toEqual({
      method: 'notifications/message',
      params: { level: 'warning', data: '450 log messages from "up" dropped (more than 50 a second)' },
    });
  });

  it('logs a listing with hundreds of dropped tools in 11 lines, and the same listing again not at all', async () => {
    const { logger, lines } = recordingLogger();
    fake.tools = [tool('echo'), ...Array.from({ length: 300 }, () => tool('echo'))];
    const conn = await started(fake.options({ logger }));
    expect(conn.tools.map((t) => t.name)).toEqual(['echo']);
    const warnings = lines.filter((l) => l.startsWith('warn:'));
    expect(warnings).toHaveLength(11);
    expect(warnings.at(-1)).toBe('warn: upstream "up": …and 290 more dropped (reasons: duplicate name ×290)');
    for (let i = 0; i < 20; i++) {
      await fake.announce();
      await vi.advanceTimersByTimeAsync(150);
    }
    expect(lines.filter((l) => l.startsWith('warn:'))).toHaveLength(11);
    fake.tools = [tool('echo'), tool('second'), tool('second')];
    await fake.announce();
    await vi.advanceTimersByTimeAsync(150);
    expect(lines.filter((l) => l.startsWith('warn:')).at(-1)).toBe('warn: upstream "up": dropped tool second: duplicate name');
  });
});

describe('a config reload after close', () => {
  it('a reload queued behind another while the gateway shut down starts nothing', async () => {
    let attempts = 0;
    const pool = await UpstreamPool.open({ up: fakeServer() }, fake.options({ transports: (...args) => ((attempts += 1), fake.transports(...args)) }));
    closeAll = () => pool.close();
    const start = pool.start();
    await vi.advanceTimersByTimeAsync(0);
    await start;
    expect(attempts).toBe(1);
    await pool.close();
    // Before: the changed and the added entry were started after close, their processes left behind.
    expect(await pool.reconcile({ up: fakeServer({ args: ['changed'] }), added: fakeServer() })).toEqual({ added: [], removed: [], restarted: [] });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(attempts).toBe(1);
    expect(pool.summary().map((s) => s.status)).toEqual(['closed']);
  });
});
