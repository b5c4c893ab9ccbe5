/**
 * Where sign-in state lives: the state folder and the file names in it. Pure: the environment and
 * home folder are passed in. Source: docs/sign-in.md; XDG Base Directory Specification
 * (`$XDG_STATE_HOME`, default `~/.local/state`).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** Environment variable naming the state folder outright. */
export const STATE_DIR_ENV = 'TOOLSHELF_STATE_DIR';

/**
 * The state folder: `TOOLSHELF_STATE_DIR`, else `$XDG_STATE_HOME/toolshelf`, else
 * `<home>/.local/state/toolshelf`. Empty or relative XDG values are ignored, as the XDG spec says.
 */
export function stateDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const own = env[STATE_DIR_ENV];
  if (own) return own;
  const xdg = env.XDG_STATE_HOME;
  if (xdg && xdg.startsWith('/')) return join(xdg, 'toolshelf');
  return join(home, '.local', 'state', 'toolshelf');
}

/**
 * A file-name-safe stem for one server entry: the key's safe characters plus a short hash of the key
 * and URL, so two keys that sanitise alike, or one key whose URL changed, never share credentials.
 */
export function serverFileStem(serverKey: string, url: string): string {
  const safe = serverKey.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  const hash = createHash('sha256').update(`${serverKey}\u0000${url}`).digest('hex').slice(0, 12);
  return `${safe}-${hash}`;
}
