/**
 * `toolshelf auth login <server> | status | logout <server>`: sign in to a remote upstream in the
 * browser, list each remote upstream's sign-in state, forget one's credentials. Results go to `out`
 * (stdout); the URL to open and problems go to stderr. Source: docs/sign-in.md.
 */
import { parseArgs } from 'node:util';
import { signIn } from '../auth/flow.js';
import { authStatus, formatStatus } from '../auth/status.js';
import { storeFromEnv } from '../auth/upstreamAuth.js';
import { isRemote, type Config, type RemoteServerConfig } from '../config/types.js';
import { suggestNames } from '../discovery/suggest.js';
import { argumentError, type ArgOptions, CONFIG_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, loadOrReport } from './common.js';

export const AUTH_USAGE = `Usage: toolshelf auth login SERVER [--config FILE]   sign in to SERVER in the browser
       toolshelf auth status [--config FILE] [--json]  each remote server's sign-in state
       toolshelf auth logout SERVER [--config FILE]  forget SERVER's credentials

Credentials live in $TOOLSHELF_STATE_DIR (default $XDG_STATE_HOME/toolshelf or ~/.local/state/toolshelf).
The sign-in URL opens with $BROWSER when set, else the system's opener, and is printed here too.
  ${CONFIG_HELP}`;

/** Runs an `auth` subcommand; returns the exit code. */
export async function runAuth(argv: string[], out: (line: string) => void): Promise<number> {
  const err = (text: string): void => void process.stderr.write(`${text}\n`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return err(`toolshelf: ${argumentError(error, AUTH_OPTIONS)}\n${AUTH_USAGE}`), EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  const [action, name, ...extra] = positionals;
  if (values.help || action === undefined) return out(AUTH_USAGE), values.help ? EXIT_OK : EXIT_USAGE;
  const needsName = action === 'login' || action === 'logout';
  const actions = ['login', 'status', 'logout'];
  if (!actions.includes(action)) {
    const [closest] = suggestNames(action, actions, 1);
    const hint = closest === undefined ? '' : `; did you mean "auth ${closest}"?`;
    return err(`toolshelf: unknown auth action "${action}"${hint}\n${AUTH_USAGE}`), EXIT_USAGE;
  }
  if (extra.length > 0 || needsName !== (name !== undefined)) {
    return err(`toolshelf: unexpected arguments: auth ${positionals.join(' ')}\n${AUTH_USAGE}`), EXIT_USAGE;
  }
  const config = loadOrReport(values.config, (text) => process.stderr.write(text));
  if (!config) return EXIT_USAGE;
  const store = storeFromEnv();
  if (action === 'status') {
    const rows = remoteServers(config).map(([key, server]) => authStatus(key, server, store.read(key, server.url), Date.now()));
    for (const line of values.json ? [JSON.stringify(rows, null, 2)] : formatStatus(rows)) out(line);
    return EXIT_OK;
  }
  const server = config.mcpServers[name!];
  if (!server || !isRemote(server)) {
    const known = remoteServers(config).map(([key]) => key);
    return err(`toolshelf: "${name}" is not a remote server in the config (remote servers: ${known.join(', ') || 'none'})`), EXIT_USAGE;
  }
  if (action === 'logout') {
    out((await store.remove(name!, server.url)) ? `Signed out of "${name}": its credentials are forgotten.` : `No credentials were stored for "${name}".`);
    return EXIT_OK;
  }
  if (server.auth?.grantType === 'client_credentials') return out(`"${name}" uses client credentials: there is nothing to sign in to.`), EXIT_OK;
  const outcome = await signIn({ key: name!, url: server.url, store, err, ...(server.auth ? { settings: server.auth } : {}) });
  if (outcome.kind === 'failed') return err(`toolshelf: sign-in to "${name}" failed: ${outcome.reason}`), EXIT_FAILURE;
  out(`Signed in to "${name}".`);
  return EXIT_OK;
}

const AUTH_OPTIONS = { config: { type: 'string', short: 'c' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } satisfies ArgOptions;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: AUTH_OPTIONS,
    strict: true,
    allowPositionals: true,
  });
}

function remoteServers(config: Config): [string, RemoteServerConfig][] {
  return Object.entries(config.mcpServers).filter((entry): entry is [string, RemoteServerConfig] => isRemote(entry[1]));
}
