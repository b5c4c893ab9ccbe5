// Marks the built CLI executable so `npx toolshelf` and the package bin work after `npm run build`,
// and copies the dashboard's page (HTML, script, styles: served as they are, no bundler) into dist/.
import { chmodSync, cpSync } from 'node:fs';

chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
cpSync(new URL('../src/dashboard/page/', import.meta.url), new URL('../dist/dashboard/page/', import.meta.url), { recursive: true });
