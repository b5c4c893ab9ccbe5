/**
 * The `auth` keys of a remote server entry: accepted with `${VAR}`, refused by JSON path when they
 * do not fit together or sit on a stdio server. Source: docs/sign-in.md.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { isRemote } from '../../src/config/types.js';

const problemsOf = (config: unknown, env: Record<string, string> = {}) => {
  const result = parseConfig(JSON.stringify(config), env, '/');
  return result.ok ? [] : result.error;
};

describe('auth keys', () => {
  it('accepts every key, with ${VAR} expanded', () => {
    const result = parseConfig(
      JSON.stringify({
        mcpServers: {
          linear: { url: 'https://mcp.linear.app/mcp', auth: { clientId: '${ID}', clientSecret: '${SECRET}', scope: 'read write', clientMetadataUrl: 'https://toolshelf.example/client.json', signInTimeoutMs: 60000 } },
          job: { url: 'https://x/mcp', auth: { grantType: 'client_credentials', clientId: 'job', privateKey: '${KEY}', signingAlgorithm: 'ES256' } },
        },
      }),
      { ID: 'abc', SECRET: 'shh', KEY: '-----BEGIN PRIVATE KEY-----' },
      '/',
    );
    expect(result.ok).toBe(true);
    const linear = result.ok ? result.value.mcpServers.linear! : undefined;
    expect(linear && isRemote(linear) && linear.auth).toMatchObject({ clientId: 'abc', clientSecret: 'shh' });
  });

  it('refuses what does not fit, by JSON path', () => {
    const problems = problemsOf({
      mcpServers: {
        a: { command: 'x', auth: {} },
        b: { url: 'https://x/mcp', auth: { grantType: 'client_credentials' } },
        c: { url: 'https://x/mcp', auth: { clientSecret: 's', privateKey: 'k', grantType: 'client_credentials', clientId: 'c' } },
        d: { url: 'https://x/mcp', auth: { signingAlgorithm: 'RS256', clientMetadataUrl: 'http://plain/doc', grantType: 'password', extra: 1 } },
      },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '/mcpServers/a/auth', message: 'does not apply to a stdio server' },
        { path: '/mcpServers/b/auth/clientId', message: 'is required with grantType "client_credentials"' },
        { path: '/mcpServers/b/auth', message: 'needs "clientSecret" or "privateKey" with grantType "client_credentials"' },
        { path: '/mcpServers/c/auth/privateKey', message: 'excludes "clientSecret"; give one' },
        { path: '/mcpServers/d/auth/signingAlgorithm', message: 'applies only with "privateKey"' },
        { path: '/mcpServers/d/auth/extra', message: 'is not a known key' },
        expect.objectContaining({ path: '/mcpServers/d/auth/grantType' }),
        expect.objectContaining({ path: '/mcpServers/d/auth/clientMetadataUrl' }),
      ]),
    );
  });

  it('names a missing ${VAR} in an auth key without showing other values', () => {
    const problems = problemsOf({ mcpServers: { a: { url: 'https://x/mcp', auth: { clientSecret: '${NOPE}' } } } });
    expect(problems).toEqual([expect.objectContaining({ path: '/mcpServers/a/auth/clientSecret', message: expect.stringContaining('NOPE') })]);
  });
});
