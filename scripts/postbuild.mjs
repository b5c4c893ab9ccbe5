// Marks the built CLI executable so `npx toolshelf` and the package bin work after `npm run build`.
import { chmodSync } from 'node:fs';

chmodSync(new URL('../dist/cli.js', import.meta.url), 0o755);
