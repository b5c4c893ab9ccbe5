/**
 * `toolshelf` over stdio with sharing on: the relay side (find or start the
 * background instance for this config, then relay stdio to it) and the instance side (claim the
 * socket, release it on exit). The default for stdio clients; `--no-share` or `"share": {"enabled":
 * false}` serves from the client's own process as before.
 */
import { resolve } from 'node:path';
import { claimInstance, releaseInstance } from '../share/claim.js';
import { instancePaths, instancePathsOf, type InstancePaths } from '../share/paths.js';
import { relayToSharedInstance, type InstanceStart, type RelayEnd } from '../share/relay.js';
import type { Logger } from '../trace/log.js';
import { buildIdentity, CLI_ENTRY } from '../packageFiles.js';

/**
 * How long a client waits for a new instance to listen, in ms: the gateway's own start-up wait for
 * upstreams (10 s by default) plus Node's start on a loaded machine, with room to spare.
 */
const INSTANCE_START_WAIT_MS = 60_000;

/**
 * Node flags of the shared instance. `--max-semi-space-size=2` (MiB) keeps V8's young generation
 * small: left to grow to its default 16 MiB per semi-space it held 32 MiB of a 93 MiB instance that
 * had 2 MiB of young objects live, for a few more scavenges while a catalogue is built
 * (docs/performance.md, "Memory").
 */
export const INSTANCE_NODE_FLAGS = ['--max-semi-space-size=2'] as const;

/**
 * Where the shared instance of `configFile` with these serve flags lives, how to start it, and how
 * long to wait for it: what a relay and `toolshelf ui` both need to find or start the same instance.
 */
export function sharedInstance(configFile: { path: string; text: string }, logLevel: string, trace: string | undefined): InstanceStart {
  const flags = ['--log-level', logLevel, ...(trace ? ['--trace', resolve(trace)] : [])];
  const paths = instancePaths(configFile.path, configFile.text, flags, buildIdentity(), process.env);
  return { paths, instanceArgs: [...INSTANCE_NODE_FLAGS, CLI_ENTRY, 'serve', '--config', configFile.path, ...flags, '--shared-instance', paths.socket], startWaitMs: INSTANCE_START_WAIT_MS };
}

/**
 * Relays this process's stdio to the shared instance `start` ({@link sharedInstance}), starting it
 * when needed; `view` is the view the client chose (one instance serves every view). Returns the exit
 * code, or why no instance could be reached (stdin unread).
 */
export function relayShared(start: InstanceStart, err: (text: string) => void, view?: string): Promise<RelayEnd> {
  return relayToSharedInstance({
    ...start,
    input: process.stdin,
    output: process.stdout,
    note: (line) => err(`${line}\n`),
    ...(view !== undefined ? { view } : {}),
  });
}

/**
 * Claims the instance at `socket` for this process; undefined (after a log line) when another live
 * instance holds it. The claim is released when the process exits, however it exits.
 */
export function claimSharedInstance(socket: string, logger: Logger): InstancePaths | undefined {
  const paths = instancePathsOf(socket);
  if (!claimInstance(paths)) {
    logger.info(`another shared instance already serves ${socket}; this one ends`);
    return undefined;
  }
  process.once('exit', () => releaseInstance(paths));
  return paths;
}
