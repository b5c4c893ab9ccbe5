/**
 * The environment and PATH a stdio upstream gets: npm's own variables are never passed on (under
 * `npx toolshelf` they broke every `npx -y` upstream), an explicit `env` entry still wins, and the
 * `node_modules/.bin` folders of the config's folder and its ancestors come first on PATH, as in
 * npm scripts. Source: docs/configuration.md.
 */
import { describe, expect, it } from 'vitest';
import { binFolders, binSearchFolders, childEnvironment, isNpmVariable, isOwnVariable } from '../../src/upstream/process.js';

/** What `npx --package toolshelf toolshelf` puts in toolshelf's environment (from a real run). */
const NPX_ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/u',
  npm_config_package: 'toolshelf',
  npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
  npm_node_execpath: '/usr/bin/node',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  npm_package_json: '/tmp/p/package.json',
  npm_lifecycle_event: 'npx',
  npm_lifecycle_script: 'toolshelf',
  npm_command: 'exec',
  INIT_CWD: '/tmp/p',
};

describe('childEnvironment', () => {
  it('passes only the safe set and the entry\'s env by default; inheritEnv: true passes the whole environment', () => {
    const parent = { ...NPX_ENV, USER: 'u', LANG: 'C.UTF-8', GITHUB_TOKEN: 'ghp_secret123', AWS_SECRET_ACCESS_KEY: 'aws-secret', HTTPS_PROXY: 'http://p:3128', EDITOR: 'vi' };
    expect(childEnvironment({ command: 'x', env: { API_KEY: 'given' } }, parent)).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/u', USER: 'u', LANG: 'C.UTF-8', API_KEY: 'given' });
    expect(childEnvironment({ command: 'x', inheritEnv: false }, parent)).toEqual(childEnvironment({ command: 'x' }, parent));
    expect(childEnvironment({ command: 'x', inheritEnv: true }, parent)).toMatchObject({ GITHUB_TOKEN: 'ghp_secret123', AWS_SECRET_ACCESS_KEY: 'aws-secret', HTTPS_PROXY: 'http://p:3128', EDITOR: 'vi' });
  });

  it('drops every npm variable and INIT_CWD, keeps the rest', () => {
    const env = childEnvironment({ command: 'npx' }, NPX_ENV);
    expect(env).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/u' });
  });

  it('an explicit env entry still wins', () => {
    const env = childEnvironment({ command: 'npx', env: { npm_config_registry: 'http://127.0.0.1:4873/' } }, NPX_ENV);
    expect(env.npm_config_registry).toBe('http://127.0.0.1:4873/');
    expect(env.npm_config_package).toBeUndefined();
  });

  it('puts the bin folders first on PATH, over an inherited or configured PATH', () => {
    expect(childEnvironment({ command: 'x' }, NPX_ENV, ['/a/node_modules/.bin']).PATH).toBe('/a/node_modules/.bin:/usr/bin:/bin');
    expect(childEnvironment({ command: 'x', env: { PATH: '/opt/bin' } }, NPX_ENV, ['/a/node_modules/.bin']).PATH).toBe('/a/node_modules/.bin:/opt/bin');
    expect(childEnvironment({ command: 'x', inheritEnv: false }, NPX_ENV, ['/b']).PATH).toBe('/b:/usr/bin:/bin');
  });

  it("never passes on toolshelf's own settings, the HTTP token above all, unless the server's env sets them", () => {
    const parent = { PATH: '/usr/bin', TOOLSHELF_TOKEN: 'sekrit-nc-123', toolshelf_state_dir: '/s', TOOLSHELF_SHARE: '1', MY_API_KEY: 'x' };
    expect(childEnvironment({ command: 'x', inheritEnv: true }, parent)).toEqual({ PATH: '/usr/bin', MY_API_KEY: 'x' });
    expect(childEnvironment({ command: 'x', inheritEnv: true, env: { TOOLSHELF_STATE_DIR: '/nested' } }, parent)).toEqual({ PATH: '/usr/bin', MY_API_KEY: 'x', TOOLSHELF_STATE_DIR: '/nested' });
    expect(childEnvironment({ command: 'x' }, parent)).toEqual({ PATH: '/usr/bin' });
    expect(['TOOLSHELF_TOKEN', 'toolshelf_share'].every(isOwnVariable) && !isOwnVariable('MY_TOOLSHELF_TOKEN')).toBe(true);
  });

  it('names npm variables case-insensitively (npm reads NPM_CONFIG_* too)', () => {
    expect(['npm_config_package', 'NPM_CONFIG_CACHE', 'npm_lifecycle_event', 'INIT_CWD'].every(isNpmVariable)).toBe(true);
    expect(['NODE_OPTIONS', 'PATH', 'NPMRC', 'init_cwd'].some(isNpmVariable)).toBe(false);
  });
});

describe('binFolders', () => {
  it('lists node_modules/.bin of the folder and every ancestor, nearest first', () => {
    // The bundled config inside an installed package: its servers' bins are in the project's folder.
    expect(binFolders('/home/u/project/node_modules/toolshelf')).toEqual([
      '/home/u/project/node_modules/toolshelf/node_modules/.bin',
      '/home/u/project/node_modules/node_modules/.bin',
      '/home/u/project/node_modules/.bin',
      '/home/u/node_modules/.bin',
      '/home/node_modules/.bin',
      '/node_modules/.bin',
    ]);
  });
});

describe('binSearchFolders (a config outside the project named a bundled bin)', () => {
  it("looks beside the config first, then beside toolshelf's own package, each folder once", () => {
    expect(binSearchFolders('/work/cfg', '/home/u/project/node_modules/toolshelf')).toEqual([
      '/work/cfg/node_modules/.bin',
      '/work/node_modules/.bin',
      '/node_modules/.bin',
      '/home/u/project/node_modules/toolshelf/node_modules/.bin',
      '/home/u/project/node_modules/node_modules/.bin',
      '/home/u/project/node_modules/.bin',
      '/home/u/node_modules/.bin',
      '/home/node_modules/.bin',
    ]);
  });
});
