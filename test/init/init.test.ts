/**
 * `toolshelf init`'s rules (docs/init.md): client file paths per platform, reading each client's
 * format (malformed ones included), converting entries, merging with conflicts and moved secrets,
 * and the rewritten client files. Pure.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { appConfigDir, clientFiles, defaultConfigPath, type ClientFile } from '../../src/init/clients.js';
import { convertEntry, isToolshelfEntry } from '../../src/init/entries.js';
import { defaultUnsetReferences, mergeEntries, moveSecrets } from '../../src/init/merge.js';
import { jsoncToJson, parseClientFile } from '../../src/init/parse.js';
import { launchFor, npxLocalPackage, planInit, toolshelfEntry } from '../../src/init/plan.js';

const byClient = (files: ClientFile[]) => files.map((f) => `${f.client}:${f.scope} ${f.path}`);

describe('client file paths', () => {
  it('Linux: XDG_CONFIG_HOME (an empty one counts as unset), home dot-folders, CODEX_HOME', () => {
    expect(byClient(clientFiles('linux', { HOME: '/home/u', XDG_CONFIG_HOME: '/xdg' }, '/p'))).toEqual([
      'claude-desktop:user /xdg/Claude/claude_desktop_config.json',
      'claude-code:user /home/u/.claude.json',
      'cursor:user /home/u/.cursor/mcp.json',
      'vscode:user /xdg/Code/User/mcp.json',
      'windsurf:user /home/u/.codeium/windsurf/mcp_config.json',
      'codex:user /home/u/.codex/config.toml',
      'claude-code:project /p/.mcp.json',
      'cursor:project /p/.cursor/mcp.json',
      'vscode:project /p/.vscode/mcp.json',
    ]);
    expect(appConfigDir('linux', { HOME: '/home/u', XDG_CONFIG_HOME: '' })).toBe('/home/u/.config');
    expect(clientFiles('linux', { HOME: '/home/u', CODEX_HOME: '/c' }).at(-1)?.path).toBe('/c/config.toml');
    expect(defaultConfigPath('linux', { HOME: '/home/u' })).toBe('/home/u/.config/toolshelf/servers.config.json');
  });

  it('macOS: Application Support', () => {
    const files = clientFiles('darwin', { HOME: '/Users/u' });
    expect(files[0]?.path).toBe('/Users/u/Library/Application Support/Claude/claude_desktop_config.json');
    expect(files[3]?.path).toBe('/Users/u/Library/Application Support/Code/User/mcp.json');
    expect(files).toHaveLength(6);
  });

  it('Windows: APPDATA and USERPROFILE, backslashes', () => {
    const env = { USERPROFILE: 'C:\\Users\\u', APPDATA: 'C:\\Users\\u\\AppData\\Roaming' };
    expect(byClient(clientFiles('win32', env, 'D:\\proj'))).toEqual([
      'claude-desktop:user C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      'claude-code:user C:\\Users\\u\\.claude.json',
      'cursor:user C:\\Users\\u\\.cursor\\mcp.json',
      'vscode:user C:\\Users\\u\\AppData\\Roaming\\Code\\User\\mcp.json',
      'windsurf:user C:\\Users\\u\\.codeium\\windsurf\\mcp_config.json',
      'codex:user C:\\Users\\u\\.codex\\config.toml',
      'claude-code:project D:\\proj\\.mcp.json',
      'cursor:project D:\\proj\\.cursor\\mcp.json',
      'vscode:project D:\\proj\\.vscode\\mcp.json',
    ]);
    expect(appConfigDir('win32', { USERPROFILE: 'C:\\Users\\u' })).toBe('C:\\Users\\u\\AppData\\Roaming');
    expect(() => clientFiles('linux', {})).toThrow('HOME is not set');
  });
});

const file = (client: ClientFile['client'], format: ClientFile['format'] = 'mcpServers', scope: ClientFile['scope'] = 'user'): ClientFile => ({ client, scope, path: `/f/${client}-${scope}`, format });

describe('reading client files', () => {
  it('reads JSONC (comments, trailing commas) for VS Code, leaving strings alone', () => {
    expect(JSON.parse(jsoncToJson('{ // c\n "a": "x//y /* z */", /* b */ "b": [1, 2,], }'))).toEqual({ a: 'x//y /* z */', b: [1, 2] });
    const vs = parseClientFile(file('vscode', 'servers'), '{ "servers": { "f": { "command": "uvx", }, }, }');
    expect(vs.ok && vs.servers).toEqual({ f: { command: 'uvx' } });
  });

  it('reads Codex TOML tables', () => {
    const codex = parseClientFile(file('codex', 'codex-toml'), 'model = "o3"\n[mcp_servers.mem]\ncommand = "npx"\nargs = ["-y", "m"]\n[mcp_servers.mem.env]\nK = "v"\n');
    expect(codex.ok && JSON.parse(JSON.stringify(codex.servers))).toEqual({ mem: { command: 'npx', args: ['-y', 'm'], env: { K: 'v' } } });
  });

  it('reports malformed files, and a file with no entries has none', () => {
    expect(parseClientFile(file('cursor'), '{ "mcpServers": ')).toEqual({ ok: false, why: expect.stringMatching(/^not valid JSON: /) });
    expect(parseClientFile(file('cursor'), '[1]')).toEqual({ ok: false, why: 'not a JSON object' });
    expect(parseClientFile(file('cursor'), '{ "mcpServers": [] }')).toEqual({ ok: false, why: '"mcpServers" is not an object' });
    expect(parseClientFile(file('codex', 'codex-toml'), '[mcp_servers\n')).toEqual({ ok: false, why: expect.stringMatching(/^not valid TOML: /) });
    expect(parseClientFile(file('claude-code'), '{ "numStartups": 3 }')).toEqual({ ok: true, doc: { numStartups: 3 }, servers: {} });
  });
});

describe('converting entries', () => {
  it('keeps stdio and remote entries, escaping ${ for clients that expand nothing', () => {
    expect(convertEntry('claude-desktop', 'a', { command: 'npx', args: ['-y', 'x', '${HOME}'], env: { A: '1' }, disabled: true })).toEqual({
      ok: true,
      entry: { command: 'npx', args: ['-y', 'x', '$${HOME}'], env: { A: '1' }, disabled: true },
      notes: [],
    });
    expect(convertEntry('claude-code', 'r', { type: 'sse', url: 'https://h/sse', headers: { Authorization: 'Bearer ${TOKEN}' } })).toEqual({
      ok: true,
      entry: { url: 'https://h/sse', headers: { Authorization: 'Bearer ${TOKEN}' }, transport: 'sse' },
      notes: [],
    });
  });

  it('Windsurf serverUrl, ${env:X} of Cursor/VS Code/Windsurf, ${workspaceFolder} in a project file', () => {
    expect(convertEntry('windsurf', 'w', { serverUrl: 'https://w/mcp' })).toMatchObject({ ok: true, entry: { url: 'https://w/mcp' } });
    expect(convertEntry('cursor', 'c', { command: 'x', env: { T: '${env:GH_TOKEN}' } })).toMatchObject({ ok: true, entry: { env: { T: '${GH_TOKEN}' } } });
    expect(convertEntry('vscode', 'v', { type: 'stdio', command: 'x', args: ['${workspaceFolder}/src'] }, '/proj')).toMatchObject({ ok: true, entry: { args: ['/proj/src'] } });
    expect(convertEntry('vscode', 'v', { command: 'x', args: ['${workspaceFolder}'] })).toEqual({ ok: false, why: 'it uses ${workspaceFolder}, which only its client can fill in' });
    expect(convertEntry('vscode', 'v', { command: 'x', env: { K: '${input:key}' } })).toEqual({ ok: false, why: 'it uses ${input:key}, which only its client can fill in' });
  });

  it('Codex: enabled = false, bearer token variable, headers, timeouts in seconds', () => {
    expect(convertEntry('codex', 'x', { url: 'https://x/mcp', bearer_token_env_var: 'X_TOKEN', http_headers: { 'X-A': 'b' }, env_http_headers: { 'X-Key': 'X_KEY' }, enabled: false, tool_timeout_sec: 90, startup_timeout_sec: 15 })).toEqual({
      ok: true,
      entry: { url: 'https://x/mcp', headers: { 'X-A': 'b', 'X-Key': '${X_KEY}', Authorization: 'Bearer ${X_TOKEN}' }, disabled: true, startTimeoutMs: 15000, timeoutMs: 90000 },
      notes: [],
    });
  });

  it('leaves out unknown keys with a note, and refuses what is no server', () => {
    expect(convertEntry('cursor', 'c', { command: 'x', envFile: '.env', autoApprove: [] })).toEqual({ ok: true, entry: { command: 'x' }, notes: ['"c": left out "envFile", "autoApprove" (toolshelf has no such setting)'] });
    expect(convertEntry('cursor', 'c', 'npx x')).toEqual({ ok: false, why: 'the entry is not an object' });
    expect(convertEntry('cursor', 'c', {})).toEqual({ ok: false, why: 'it has neither a command nor a URL' });
    expect(convertEntry('cursor', 'c', { command: 'x', url: 'https://y' })).toEqual({ ok: false, why: 'it has both a command and a URL' });
    expect(convertEntry('cursor', 'c', { command: 'x', args: [{}] })).toEqual({ ok: false, why: 'its "args" is not a list of strings' });
  });

  it('knows toolshelf\'s own entry', () => {
    expect(isToolshelfEntry('toolshelf', {})).toBe(true);
    expect(isToolshelfEntry('shelf', { command: 'node', args: ['/opt/toolshelf/dist/cli.js', '--config', 'x'] })).toBe(true);
    expect(isToolshelfEntry('shelf', { command: 'npx', args: ['-y', 'toolshelf@1.2.0'] })).toBe(true);
    expect(isToolshelfEntry('files', { command: 'npx', args: ['server-filesystem'] })).toBe(false);
  });
});

describe('merging', () => {
  const a = file('claude-desktop');
  const b = file('cursor');
  it('keeps identical entries once, names a conflict and keeps both', () => {
    const merged = mergeEntries({ old: { command: 'o' } }, [
      { file: a, key: 'files', entry: { command: 'fs' } },
      { file: b, key: 'files', entry: { command: 'fs' } },
      { file: a, key: 'gh', entry: { command: 'gh', env: { T: '1' } } },
      { file: b, key: 'gh', entry: { command: 'gh', env: { T: '2' } } },
      { file: b, key: 'old', entry: { command: 'o' } },
    ]);
    expect(Object.keys(merged.servers)).toEqual(['old', 'files', 'gh', 'gh-cursor']);
    expect(merged.keys).toEqual(['files', 'files', 'gh', 'gh-cursor', 'old']);
    expect(merged.added).toEqual(['files', 'gh', 'gh-cursor']);
    expect(merged.conflicts).toEqual(['"gh" from /f/cursor-user differs from the one from /f/claude-desktop-user; both kept, this one as "gh-cursor"']);
  });

  it('moves credentials to ${VAR} references, one name per value', () => {
    const moved = moveSecrets(
      {
        gh: { command: 'x', env: { GITHUB_TOKEN: 't1', LOG_LEVEL: 'debug', API_KEY: '${ALREADY}' } },
        gh2: { command: 'x', env: { GITHUB_TOKEN: 't2' } },
        lin: { url: 'https://l', headers: { Authorization: 'Bearer z' } },
        kept: { command: 'x', env: { SECRET: 's' } },
      },
      ['gh', 'gh2', 'lin'],
    );
    expect(moved.servers.gh?.env).toEqual({ GITHUB_TOKEN: '${GITHUB_TOKEN}', LOG_LEVEL: 'debug', API_KEY: '${ALREADY}' });
    expect(moved.servers.gh2?.env).toEqual({ GITHUB_TOKEN: '${GH2_GITHUB_TOKEN}' });
    expect(moved.servers.lin?.headers).toEqual({ Authorization: '${LIN_AUTHORIZATION}' });
    expect(moved.servers.kept?.env).toEqual({ SECRET: 's' });
    expect([...moved.values]).toEqual([['GITHUB_TOKEN', 't1'], ['GH2_GITHUB_TOKEN', 't2'], ['LIN_AUTHORIZATION', 'Bearer z']]);
    expect(moved.notes[0]).toBe('"gh": env.GITHUB_TOKEN is now ${GITHUB_TOKEN}; its value goes in the env of each toolshelf entry written');
  });
});

describe('references no toolshelf entry sets', () => {
  it("Cursor's ${env:GH_TOKEN} gets an empty default, so the config still loads from a client without GH_TOKEN", () => {
    const converted = convertEntry('cursor', 'github', { command: 'npx', args: ['-y', 'gh-mcp'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${env:GH_TOKEN}' } });
    if (!converted.ok) throw new Error(converted.why);
    const servers = { 'github-cursor': converted.entry, memory: { command: 'mcp-server-memory', env: { KEEP: '${HOME}' } } };
    const softened = defaultUnsetReferences(servers, ['github-cursor'], new Set(['MOVED']));
    expect(softened.servers['github-cursor']?.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: '${GH_TOKEN:-}' });
    // Entries not imported now, escaped literals and provided variables are left as they are.
    expect(softened.servers.memory?.env).toEqual({ KEEP: '${HOME}' });
    const kept = defaultUnsetReferences({ a: { command: 'x', args: ['$${LITERAL}', '${MOVED}'] } }, ['a'], new Set(['MOVED']));
    expect(kept.servers.a?.args).toEqual(['$${LITERAL}', '${MOVED}']);
    expect(softened.notes).toEqual(['"github-cursor" reads ${GH_TOKEN}, which no toolshelf entry sets: set GH_TOKEN where your clients start toolshelf; until then "github-cursor" starts without it (written ${GH_TOKEN:-})']);
  });
});

describe('the plan and the rewritten files', () => {
  const launch = { command: '/usr/bin/node', args: ['/opt/toolshelf/dist/cli.js', '--config', '/c/servers.config.json'] };
  it('starts this install with its node, or npx with this version when it runs from npx\'s cache', () => {
    expect(launchFor('/opt/toolshelf/dist/cli.js', '/usr/bin/node', '1.2.0', '/c.json')).toEqual({ command: '/usr/bin/node', args: ['/opt/toolshelf/dist/cli.js', '--config', '/c.json'] });
    expect(launchFor('/home/u/.npm/_npx/ab12/node_modules/toolshelf/dist/cli.js', '/usr/bin/node', '1.2.0', '/c.json')).toEqual({ command: 'npx', args: ['-y', 'toolshelf@1.2.0', '--config', '/c.json'] });
    expect(launchFor('C:\\Users\\u\\AppData\\Local\\npm-cache\\_npx\\ab\\node_modules\\toolshelf\\dist\\cli.js', 'node.exe', '1.2.0', 'C:\\c.json').command).toBe('npx');
  });

  it('runs npx on the same local tarball when npx was given one, so an unpublished build is never looked up on the registry', () => {
    const cached = '/home/u/.npm/_npx/ab12/node_modules/toolshelf/dist/cli.js';
    expect(launchFor(cached, '/usr/bin/node', '0.1.0', '/c.json', '/tmp/packt/toolshelf-0.1.0.tgz')).toEqual({
      command: 'npx',
      args: ['-y', '--package', '/tmp/packt/toolshelf-0.1.0.tgz', 'toolshelf', '--config', '/c.json'],
    });
    // Not from npx's cache: this install's node and cli.js, whatever npx was given.
    expect(launchFor('/opt/toolshelf/dist/cli.js', '/usr/bin/node', '0.1.0', '/c.json', '/tmp/t.tgz').command).toBe('/usr/bin/node');
    expect(npxLocalPackage('/tmp/packt/toolshelf-0.1.0.tgz', '/home/u')).toBe('/tmp/packt/toolshelf-0.1.0.tgz');
    expect(npxLocalPackage('./toolshelf-0.1.0.tgz', '/home/u')).toBe('/home/u/toolshelf-0.1.0.tgz');
    expect(npxLocalPackage('toolshelf-0.1.0.tgz', '/home/u')).toBe('/home/u/toolshelf-0.1.0.tgz');
    expect(npxLocalPackage('file:../toolshelf', '/home/u/x')).toBe('/home/u/toolshelf');
    expect(npxLocalPackage('toolshelf@0.1.0', '/home/u')).toBeUndefined();
    expect(npxLocalPackage('toolshelf', '/home/u')).toBeUndefined();
    expect(npxLocalPackage(undefined, '/home/u')).toBeUndefined();
    // URLs stay URLs; a spec beside another package is toolshelf's own.
    expect(npxLocalPackage('https://example.com/dl/toolshelf-0.1.0.tgz', '/home/u')).toBe('https://example.com/dl/toolshelf-0.1.0.tgz');
    expect(npxLocalPackage('toolshelf@https://example.com/t.tgz', '/home/u')).toBe('https://example.com/t.tgz');
    expect(npxLocalPackage('git+https://example.com/x/toolshelf.git', '/home/u')).toBe('git+https://example.com/x/toolshelf.git');
    expect(npxLocalPackage('file:///opt/toolshelf-0.1.0.tgz', '/home/u')).toBe('/opt/toolshelf-0.1.0.tgz');
    expect(npxLocalPackage('./plugin.tgz\n./toolshelf-0.1.0.tgz', '/home/u')).toBe('/home/u/toolshelf-0.1.0.tgz');
    expect(npxLocalPackage('./plugin.tgz\ntoolshelf', '/home/u')).toBeUndefined();
    expect(npxLocalPackage('/build/out.tgz', '/home/u')).toBe('/build/out.tgz');
  });

  it('gives Claude Code alwaysLoad and a type, VS Code a type, the rest the plain entry', () => {
    expect(toolshelfEntry('claude-code', launch, {})).toEqual({ type: 'stdio', ...launch, alwaysLoad: true });
    expect(toolshelfEntry('vscode', launch, { A: 'b' })).toEqual({ type: 'stdio', ...launch, env: { A: 'b' } });
    expect(toolshelfEntry('cursor', launch, {})).toEqual(launch);
  });

  it('rewrites each file with entries to one toolshelf entry, keeps what stays, and leaves malformed files out', () => {
    const desktop = file('claude-desktop');
    const code = file('claude-code');
    const codex = file('codex', 'codex-toml');
    const vscode = file('vscode', 'servers', 'project');
    const plan = planInit({
      files: [
        { file: desktop, text: JSON.stringify({ globalShortcut: 'x', mcpServers: { gh: { command: 'gh', env: { GITHUB_TOKEN: 'ghp' } } } }) },
        { file: code, text: JSON.stringify({ numStartups: 2, mcpServers: { toolshelf: { command: 'old' }, gh: { type: 'stdio', command: 'gh', env: { GITHUB_TOKEN: 'ghp' } } } }) },
        { file: codex, text: 'model = "o3"\n[mcp_servers.mem]\ncommand = "npx"\n' },
        { file: vscode, text: '{ "servers": { "ask": { "command": "x", "env": { "K": "${input:k}" } }' },
        { file: file('windsurf'), text: undefined },
      ],
      existing: undefined,
      launch,
    });
    expect(plan.files.map((f) => [f.file.client, f.status, f.imported.map((i) => i.as)])).toEqual([
      ['claude-desktop', 'read', ['gh']],
      ['claude-code', 'read', ['gh']],
      ['codex', 'read', ['mem']],
      ['vscode', 'malformed', []],
      ['windsurf', 'absent', []],
    ]);
    expect(JSON.parse(plan.config.text)).toEqual({ mcpServers: { gh: { command: 'gh', env: { GITHUB_TOKEN: '${GITHUB_TOKEN}' } }, mem: { command: 'npx' } } });
    const [d, c, x] = plan.rewrites;
    expect(JSON.parse(d!.text)).toEqual({ globalShortcut: 'x', mcpServers: { toolshelf: { ...launch, env: { GITHUB_TOKEN: 'ghp' } } } });
    expect(JSON.parse(c!.text)).toEqual({ numStartups: 2, mcpServers: { toolshelf: { type: 'stdio', ...launch, env: { GITHUB_TOKEN: 'ghp' }, alwaysLoad: true } } });
    expect(JSON.parse(JSON.stringify(parseToml(x!.text)))).toEqual({ model: 'o3', mcp_servers: { toolshelf: { ...launch, env: { GITHUB_TOKEN: 'ghp' } } } });
    expect(plan.rewrites).toHaveLength(3);
  });

  it('with --keep-secrets copies credentials as they are and adds no env', () => {
    const plan = planInit({ files: [{ file: file('cursor'), text: JSON.stringify({ mcpServers: { gh: { command: 'gh', env: { GITHUB_TOKEN: 'ghp' } } } }) }], existing: { mcpServers: {}, exposure: 'direct' }, launch, keepSecrets: true });
    expect(JSON.parse(plan.config.text)).toEqual({ mcpServers: { gh: { command: 'gh', env: { GITHUB_TOKEN: 'ghp' } } }, exposure: 'direct' });
    expect(JSON.parse(plan.rewrites[0]!.text).mcpServers.toolshelf).toEqual(launch);
  });
});
