/**
 * Where the installed package's own files are, and its version: `package.json`, the bundled config
 * and the CLI entry, found from this module's place at the top of `src/` (built: `dist/`). One module
 * for every command and for the stdio relay's entry (relay.ts), which must not load the commands'
 * shared code (docs/performance.md, "Memory").
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package version from package.json. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The config shipped in the package (beside `dist/`), used when the current folder has none. */
export const BUNDLED_CONFIG = fileURLToPath(new URL('../servers.config.json', import.meta.url));

/** The CLI entry (`dist/cli.js`), which a shared instance is started with. */
export const CLI_ENTRY = fileURLToPath(new URL('./cli.js', import.meta.url));
