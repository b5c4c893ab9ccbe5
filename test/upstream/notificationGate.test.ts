/**
 * NotificationGate on a fake clock: a flood of log messages passes 50 a second with one report of
 * the drops each second, list_changed bursts of resources and prompts arrive once per 100 ms, and
 * nothing is delivered after close(). Source: `test/e2e/upstreamFaults.e2e.test.ts` (100,000 notifications/message).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COALESCE_MS, MAX_PER_SECOND, NotificationGate, type UpstreamNotification } from '../../src/upstream/notificationGate.js';

let delivered: UpstreamNotification[];
let gate: NotificationGate;

beforeEach(() => {
  vi.useFakeTimers();
  delivered = [];
  gate = new NotificationGate('o', (n) => delivered.push(n));
});
afterEach(() => {
  gate.close();
  vi.useRealTimers();
});

const log = (i: number): UpstreamNotification => ({ method: 'notifications/message', params: { level: 'info', data: `flood ${i}` } });
const reports = (): unknown[] => delivered.filter((n) => n.params?.level === 'warning').map((n) => n.params?.data);

describe('log floods', () => {
  it('passes 50 of 100,000 messages sent at once and reports the rest once', async () => {
    for (let i = 0; i < 100_000; i++) gate.push(log(i));
    expect(delivered).toHaveLength(MAX_PER_SECOND);
    expect(delivered.at(-1)?.params?.data).toBe('flood 49');
    await vi.advanceTimersByTimeAsync(1000);
    expect(reports()).toEqual(['99950 log messages from "o" dropped (more than 50 a second)']);
    expect(delivered).toHaveLength(MAX_PER_SECOND + 1);
  });

  it('over a steady flood, passes 50 a second and reports once a second', async () => {
    for (let ms = 0; ms < 3000; ms += 10) {
      for (let i = 0; i < 10; i++) gate.push(log(i));
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(delivered.length - reports().length).toBe(3 * MAX_PER_SECOND);
    expect(reports()).toEqual(Array(3).fill('950 log messages from "o" dropped (more than 50 a second)'));
  });

  it('lets a quiet server through untouched', async () => {
    for (let i = 0; i < 10; i++) {
      gate.push(log(i));
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(delivered.map((n) => n.params?.data)).toEqual(Array.from({ length: 10 }, (_, i) => `flood ${i}`));
  });

  it('names other notifications in the report when not all dropped ones were log messages', async () => {
    for (let i = 0; i < MAX_PER_SECOND + 2; i++) gate.push({ method: 'notifications/resources/updated', params: { uri: 'file:///x' } });
    await vi.advanceTimersByTimeAsync(1000);
    expect(reports()).toEqual(['2 notifications from "o" dropped (more than 50 a second)']);
  });
});

describe('resources and prompts list_changed bursts', () => {
  it(`delivers each kind once per ${COALESCE_MS} ms`, async () => {
    for (let i = 0; i < 1000; i++) {
      gate.push({ method: 'notifications/resources/list_changed' });
      gate.push({ method: 'notifications/prompts/list_changed' });
    }
    expect(delivered).toEqual([]);
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(delivered.map((n) => n.method)).toEqual(['notifications/resources/list_changed', 'notifications/prompts/list_changed']);
    gate.push({ method: 'notifications/resources/list_changed' });
    await vi.advanceTimersByTimeAsync(COALESCE_MS);
    expect(delivered).toHaveLength(3);
  });

  it('delivers nothing pending after close()', async () => {
    gate.push({ method: 'notifications/prompts/list_changed' });
    for (let i = 0; i < 100; i++) gate.push(log(i));
    const before = delivered.length;
    gate.close();
    await vi.advanceTimersByTimeAsync(2000);
    expect(delivered).toHaveLength(before);
  });
});
