/**
 * Where the installed package's own files are, and its version: `package.json`, the bundled config
 * and the CLI entry, found from this module's place at the top of `src/` (built: `dist/`). One module
 * for every command and for the stdio relay's entry (relay.ts), which must not load the commands'
 * shared code (docs/performance.md, "Memory").
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package version from package.json. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The config shipped in the package (beside `dist/`), used when the current folder has none. */
export const BUNDLED_CONFIG = fileURLToPath(new URL('../servers.config.json', import.meta.url));

/** The CLI entry (`dist/cli.js`), which a shared instance is started with. */
export const CLI_ENTRY = fileURLToPath(new URL('./cli.js', import.meta.url));

/**
 * This install and build: the version, where the CLI entry is and when it was built. Part of a shared
 * instance's key (share/paths.ts), so a client of another install, or of a rebuilt one, never joins an
 * instance running other code under the same version number (docs/configuration.md, "Shared upstreams").
 */
export function buildIdentity(): string {
  let built = 0;
  try {
    built = statSync(CLI_ENTRY).mtimeMs;
  } catch {
    // Run from source (tests of the pure parts): the entry's path alone tells installs apart.
  }
  return `${VERSION} ${CLI_ENTRY} ${built}`;
}
