/**
 * class Relister: one upstream's tool listing as its connection runs it. Lists every page by a
 * deadline and logs what was dropped (once per distinct set of warnings), and throttles re-lists on
 * `notifications/tools/list_changed`: one re-list {@link LIST_CHANGED_DEBOUNCE_MS} after the first
 * of a burst, never two at once. No update is lost: a list_changed that arrives while any listing is
 * in flight (the first one at start-up included) marks the list dirty, and one re-list follows once
 * that listing completes, since its answer may predate the change. The connection
 * owns the tools and the client and lends them through {@link RelistHooks}; paging and parsing are
 * listTools.ts's. Timers use the global clock, so tests drive them with fake timers. Source: docs/robustness.md.
 */
import { ResultSchema } from '@modelcontextprotocol/core';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/client';
import type { UpstreamTool } from '../catalog/types.js';
import type { Logger } from '../trace/log.js';
import { listAllTools, listingWarnings } from './listTools.js';

/** Throttle window for bursts of upstream list_changed, in ms: one re-list this long after the first (server-everything sends seven in a row; docs/robustness.md). */
export const LIST_CHANGED_DEBOUNCE_MS = 100;

/** What a {@link Relister} reads from and gives back to its connection; each is read when needed. */
export interface RelistHooks {
  /** The upstream's server key, for log lines. */
  readonly key: string;
  readonly logger: Logger;
  /** An error in words fit for a log line (no URL credentials). */
  said(error: unknown): string;
  /** Time limit for one whole listing, in ms (the start timeout). */
  listTimeoutMs(): number;
  /** The client while the upstream is ready, else undefined (a due re-list then does nothing). */
  readyClient(): Client | undefined;
  /** The tools as last listed. */
  tools(): readonly UpstreamTool[];
  /** Stores the tools a re-list found. */
  setTools(tools: UpstreamTool[]): void;
  /** Called after a re-list that changed the tools. */
  onToolsChanged(): void;
}

/** One per connection: the listing with its warnings remembered, and the re-list throttle. */
export class Relister {
  private timer: NodeJS.Timeout | undefined;
  /** Listings sent and not yet answered (the start-up one and re-lists). */
  private inFlight = 0;
  /** A list_changed arrived that no listing sent since has covered. */
  private dirty = false;
  /** The warnings of the last listing, joined: the same ones are not logged twice in a row. */
  private lastWarnings = '';

  constructor(private readonly hooks: RelistHooks) {}

  /**
   * Lists every tool by `deadline` (epoch ms) — none for a server without the tools capability that
   * answers tools/list with -32601 — and logs a bounded summary of what was dropped, unless
   * the last listing said the same (a server re-announcing the same broken list is logged once).
   * Rejects as the request does (timeout, closed connection).
   */
  async list(client: Client, deadline: number): Promise<UpstreamTool[]> {
    // This listing is sent after every list_changed seen so far, so its answer covers them.
    this.dirty = false;
    this.inFlight += 1;
    try {
      return await this.listNow(client, deadline);
    } finally {
      this.inFlight -= 1;
      if (this.dirty && this.inFlight === 0) this.schedule();
    }
  }

  private async listNow(client: Client, deadline: number): Promise<UpstreamTool[]> {
    let listing: Awaited<ReturnType<typeof listAllTools>>;
    try {
      listing = await listAllTools(
        (cursor, timeout) =>
          client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ResultSchema, { timeout }) as Promise<Record<string, unknown>>,
        deadline,
      );
    } catch (error) {
      // A server with only resources or prompts has no tools/list: it serves no tools, and is no failure.
      if (error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound && client.getServerCapabilities()?.tools === undefined) return [];
      throw error;
    }
    const warnings = listingWarnings(listing, this.hooks.listTimeoutMs());
    if (warnings.join('\n') !== this.lastWarnings) {
      for (const line of warnings) this.hooks.logger.warn(`upstream "${this.hooks.key}": ${line}`);
    }
    this.lastWarnings = warnings.join('\n');
    return listing.tools;
  }

  /**
   * Marks the list dirty and re-lists {@link LIST_CHANGED_DEBOUNCE_MS} from now, unless one is
   * already due or a listing is in flight (its end schedules the re-list).
   */
  schedule(): void {
    this.dirty = true;
    if (this.timer || this.inFlight > 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.relistAndNotify();
    }, LIST_CHANGED_DEBOUNCE_MS);
    this.timer.unref();
  }

  /**
   * Called by the connection once it is ready: a list_changed that came during the start-up listing
   * and found no ready client then is re-listed now. Does nothing when the list is clean.
   */
  resume(): void {
    if (this.dirty) this.schedule();
  }

  /** Cancels a due re-list (the connection is closing). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async relistAndNotify(): Promise<void> {
    // Not ready (starting, down): the list stays dirty; the next start lists anyway, and resume() covers the rest.
    const client = this.hooks.readyClient();
    if (!client || this.inFlight > 0) return;
    const before = fingerprint(this.hooks.tools());
    try {
      this.hooks.setTools(await this.list(client, Date.now() + this.hooks.listTimeoutMs()));
    } catch (error) {
      this.hooks.logger.warn(`upstream "${this.hooks.key}": re-list failed: ${this.hooks.said(error)}`);
    }
    if (changedSince(before, this.hooks.tools())) this.hooks.onToolsChanged();
  }
}

/**
 * The tool list as one string to compare, or undefined when it cannot be serialised (a schema
 * nested too deeply for the stack: the catalogue drops such a tool, the connection must not fail on it).
 */
export function fingerprint(tools: readonly UpstreamTool[]): string | undefined {
  try {
    return JSON.stringify(tools);
  } catch {
    return undefined;
  }
}

/** True when `tools` differ from the list `before` was taken of (by {@link fingerprint}); a list that cannot be compared counts as changed. */
export function changedSince(before: string | undefined, tools: readonly UpstreamTool[]): boolean {
  const now = fingerprint(tools);
  return before === undefined || now === undefined || now !== before;
}
