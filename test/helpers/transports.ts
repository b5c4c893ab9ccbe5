/**
 * Runs one e2e suite over both downstream transports: the built CLI started on a config, with a real
 * SDK Client over stdio, then over Streamable HTTP. Each suite gets one connected client, the
 * gateway's stderr lines, and everything started is ended after it. Source: docs/robustness.md.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { startHttp, startStdio } from './gateway.js';

/** A connected client and the gateway's stderr, as lines. */
export interface Gateway {
  readonly client: Client;
  readonly stderr: readonly string[];
}

/** `describe`s `body` once per transport (`over stdio`, `over Streamable HTTP`); `gateway()` is valid inside its tests. */
export function overEachTransport(configPath: () => string, body: (gateway: () => Gateway) => void): void {
  const transports: readonly (readonly [string, (path: string) => Promise<Gateway & { close(): Promise<unknown> }>])[] = [
    ['over stdio', async (path) => startStdio(path)],
    [
      'over Streamable HTTP',
      async (path) => {
        const http = await startHttp(path);
        return { client: await http.connect(), stderr: http.stderr, close: () => http.stop() };
      },
    ],
  ];
  for (const [title, open] of transports) {
    describe(title, () => {
      let opened: (Gateway & { close(): Promise<unknown> }) | undefined;
      beforeAll(async () => void (opened = await open(configPath())));
      afterAll(async () => void (await opened?.close()));
      body(() => opened as Gateway);
    });
  }
}

/** Resolves on the client's next notifications/tools/list_changed. */
export function nextListChanged(client: Client): Promise<void> {
  return new Promise((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
}
