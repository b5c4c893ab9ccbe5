/**
 * class SignInGate: the "needs sign-in" state of one remote upstream. While
 * it holds, the upstream is not retried (no retry loop on a final 401/403); it ends when credentials
 * appear in the store (a `toolshelf auth login` elsewhere) or when the gateway's own browser sign-in
 * succeeds, and the connection then starts again (its tools are listed, with list_changed). The
 * gateway opens the browser by itself once per process when the first start meets the need, and for
 * a 403 `insufficient_scope` step-up; credentials lost later wait for `toolshelf auth login`, so no
 * browser window opens unasked in the middle of a session.
 */
import type { RemoteServerConfig } from '../config/types.js';
import type { Logger } from '../trace/log.js';
import type { UpstreamAuth } from './types.js';

export class SignInGate {
  /** True while the upstream waits for sign-in. */
  needed = false;
  private stopWatching: (() => void) | undefined;
  private inProgress: Promise<boolean> | undefined;
  private triedOnStart = false;
  private closed = false;

  constructor(
    private readonly key: string,
    private readonly server: RemoteServerConfig,
    private readonly auth: UpstreamAuth,
    private readonly logger: Logger,
    /** Starts the connection again once signed in. */
    private readonly restart: () => void,
  ) {}

  /** What the model and the summary read while sign-in is needed. */
  message(): string {
    const doing = this.inProgress ? 'a browser sign-in is waiting for the user; ' : '';
    return `it needs sign-in: ${doing}the user must run \`toolshelf auth login ${this.key}\` and then retry`;
  }

  /** Enters the state (idempotent); `onStart` marks the connection's start, where the gateway may sign in by itself once. */
  enter(onStart: boolean): void {
    if (this.closed) return;
    if (!this.needed) this.logger.warn(`upstream "${this.key}": ${this.message()}`);
    this.needed = true;
    this.stopWatching ??= this.auth.watch(this.key, this.server, () => this.leave());
    if (onStart && !this.triedOnStart && this.auth.signIn) {
      this.triedOnStart = true;
      void this.run();
    }
  }

  /** Signs in for more scope (a 403 `insufficient_scope`), once per call; true when it worked. */
  stepUp(scope: string): Promise<boolean> {
    if (!this.auth.signIn || this.closed) return Promise.resolve(false);
    this.logger.info(`upstream "${this.key}" asks for more scope (${scope}); signing in again`);
    return this.signInOnce(scope);
  }

  private signInOnce(scope?: string): Promise<boolean> {
    this.inProgress ??= this.auth.signIn!(this.key, this.server, scope).finally(() => (this.inProgress = undefined));
    return this.inProgress;
  }

  private async run(): Promise<void> {
    await this.signInNow();
  }

  /**
   * Signs in now because the user asked (the dashboard's button): opens the browser, or joins the
   * sign-in already waiting for the user; on success the connection starts again. False when it
   * failed, or when this gateway cannot sign in by itself (then `toolshelf auth login` can).
   */
  async signInNow(): Promise<boolean> {
    if (!this.auth.signIn || this.closed) return false;
    const ok = await this.signInOnce();
    if (ok) this.leave();
    return ok;
  }

  /** Ends the state and starts the connection again (once, whoever calls first). */
  private leave(): void {
    if (!this.needed || this.closed) return;
    this.needed = false;
    this.stopWatching?.();
    this.stopWatching = undefined;
    this.logger.info(`upstream "${this.key}" is signed in; connecting`);
    this.restart();
  }

  close(): void {
    this.closed = true;
    this.stopWatching?.();
    this.stopWatching = undefined;
  }
}
