/**
 * Serves one gateway session on stdin/stdout. stdout carries protocol messages only (DESIGN §11).
 * The SDK's stdio server transport ignores stdin end, so end and close are watched here (issue #2).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { GatewaySession } from './session.js';

/** Connects `session` to this process's stdio; `onEnd` runs once when the client goes away. */
export async function serveStdio(session: GatewaySession, onEnd: () => void): Promise<void> {
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  const transport = new StdioServerTransport();
  transport.onclose = end;
  await session.connect(transport);
}
