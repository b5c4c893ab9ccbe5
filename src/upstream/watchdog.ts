/**
 * The watchdog: one small process per gateway that ends every upstream process group once the
 * gateway is gone, however it went (SIGKILL, a crash, OOM), with no help from the gateway.
 *
 * It is `/bin/sh` running {@link WATCHDOG_SCRIPT}, spawned detached (its own session and process
 * group, so a terminal's Ctrl-C or a kill of the gateway's group does not reach it), holding the read
 * end of a pipe whose write end only the gateway has (libuv opens pipes close-on-exec, so upstreams
 * never inherit it). The gateway writes `+PGID` as it starts each upstream group and `-PGID` once the
 * group is gone. When the pipe reaches end of file, the gateway has exited: the watchdog sends SIGTERM
 * to every group still listed, SIGKILL after {@link KILL_GRACE_MS} to what is left, and exits.
 *
 * Why this design: Node cannot become a child subreaper (`PR_SET_CHILD_SUBREAPER` needs prctl), and
 * `PR_SET_PDEATHSIG` would have to be set in each upstream after fork, which Node's spawn cannot do;
 * orphans are re-parented to PID 1 and nothing else remembers them. One watchdog per gateway, not per
 * upstream, and a shell rather than a second Node (about 1 MB of RSS instead of about 40 MB).
 * Source: docs/robustness.md, "Processes and failures" (nothing outlives the gateway).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/**
 * How long a group gets between SIGTERM and SIGKILL, in ms: from the gateway (process.ts `killGroup`)
 * and from the watchdog alike. Kept here, not in process.ts, so the pool's watchdog loads no SDK code.
 */
export const KILL_GRACE_MS = 2000;

/** Told of each upstream process group as it starts and once it is gone. */
export interface GroupRegistry {
  /** Group `pgid` (the leader's pid) was started and must not outlive the gateway. */
  adopt(pgid: number): void;
  /** Group `pgid` is gone; its id may be reused by an unrelated process from now on. */
  release(pgid: number): void;
}

/** Polls of the groups between SIGTERM and SIGKILL, 0.1 s apart: {@link KILL_GRACE_MS} in all. */
const GRACE_POLLS = Math.ceil(KILL_GRACE_MS / 100);

/**
 * The watchdog's program (POSIX sh, builtins apart from `sleep`): keep the set of groups from `+`/`-`
 * lines on stdin; at end of file SIGTERM each group, poll until all are gone or the grace ends, then
 * SIGKILL what is left. Exits at once when no group is listed (the gateway ended them all itself).
 */
export const WATCHDOG_SCRIPT = `
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) kept=' '; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept$g "; done; groups=$kept ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
i=0
while [ $i -lt ${GRACE_POLLS} ]; do
  left=; for g in $groups; do kill -s 0 -- "-$g" 2>/dev/null && left=1; done
  [ -z "$left" ] && exit 0
  sleep 0.1; i=$((i + 1))
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
exit 0
`;

/**
 * The gateway's side of the watchdog. The process is spawned on the first {@link adopt} (a gateway
 * with only remote upstreams starts none) and never keeps the event loop alive. On platforms without
 * process groups (Windows) it does nothing. If the watchdog cannot be spawned or dies, upstreams are
 * still ended on every orderly exit; `onProblem` hears why, once.
 */
export class GroupWatchdog implements GroupRegistry {
  private child: ChildProcess | undefined;
  private pipe: Writable | undefined;
  private broken = false;
  private closed = false;

  constructor(private readonly onProblem: (message: string) => void = () => {}) {}

  /** PID of the watchdog process, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  adopt(pgid: number): void {
    this.write(`+${pgid}`);
  }

  release(pgid: number): void {
    if (this.pipe) this.write(`-${pgid}`);
  }

  /** Closes the pipe: the watchdog ends whatever groups are still listed and exits. */
  close(): void {
    this.closed = true;
    this.pipe?.end();
  }

  private write(line: string): void {
    if (this.broken || this.closed || process.platform === 'win32') return;
    this.pipe ??= this.start();
    this.pipe?.write(`${line}\n`);
  }

  private start(): Writable | undefined {
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    } catch (error) {
      this.fail(`cannot start the process watchdog: ${(error as Error).message}`);
      return undefined;
    }
    const stdin = child.stdin;
    if (!stdin) return undefined;
    child.once('error', (error) => this.fail(`cannot start the process watchdog: ${error.message}`));
    child.once('exit', () => {
      if (!this.closed) this.fail('the process watchdog exited');
    });
    stdin.on('error', () => undefined);
    child.unref();
    (stdin as Writable & { unref?: () => void }).unref?.();
    this.child = child;
    return stdin;
  }

  private fail(message: string): void {
    if (this.broken) return;
    this.broken = true;
    this.onProblem(`${message}; upstreams are still ended on every orderly exit, but not if the gateway is killed`);
  }
}
