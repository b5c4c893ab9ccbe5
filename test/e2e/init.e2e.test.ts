/**
 * `toolshelf init` through the built CLI, on a temporary HOME (XDG_CONFIG_HOME, APPDATA and CODEX_HOME
 * pointed inside it): a dry run writes nothing; --apply writes servers.config.json, rewrites each
 * client file to one toolshelf entry with backups, and leaves a malformed file alone; the rewritten
 * entry starts a gateway that serves the imported server; --undo puts every file back byte for byte,
 * and leaves a file edited since as it is. See docs/init.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cliPath, fixture, tempDir, textOf } from '../helpers/gateway.js';

const home = tempDir('toolshelf-init-');
const project = join(home, 'project');
const env = { ...process.env, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: join(home, '.config'), APPDATA: join(home, 'AppData'), CODEX_HOME: join(home, '.codex') };
const toolsFile = join(home, 'tools.json');
writeFileSync(toolsFile, JSON.stringify([{ name: 'ping', description: 'Answers with the pid.', inputSchema: { type: 'object', properties: {} } }]));

const files = {
  desktop: join(home, '.config', 'Claude', 'claude_desktop_config.json'),
  cursor: join(home, '.cursor', 'mcp.json'),
  claudeProject: join(project, '.mcp.json'),
  codex: join(home, '.codex', 'config.toml'),
  config: join(home, '.config', 'toolshelf', 'servers.config.json'),
};
const originals: Record<string, string> = {
  desktop: `${JSON.stringify({ globalShortcut: 'Ctrl+Space', mcpServers: { rec: { command: 'node', args: [fixture('recorder.mjs')], env: { TOOLS_FILE: toolsFile, API_TOKEN: 'tok-123' } } } }, null, 2)}\n`,
  cursor: '{ "mcpServers": { "half": ',
  claudeProject: `${JSON.stringify({ mcpServers: { rec: { type: 'stdio', command: 'node', args: [fixture('recorder.mjs')], env: { TOOLS_FILE: toolsFile, API_TOKEN: 'tok-123' } } } })}\n`,
  codex: `model = "o3"\n# kept in the backup\n[mcp_servers.other]\ncommand = "node"\nargs = ["${fixture('recorder.mjs').replaceAll('\\', '\\\\')}"]\n[mcp_servers.other.env]\nTOOLS_FILE = "${toolsFile.replaceAll('\\', '\\\\')}"\n`,
};
for (const [name, text] of Object.entries(originals)) {
  const path = files[name as keyof typeof files];
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

const init = (...args: string[]) => spawnSync(process.execPath, [cliPath, 'init', ...args], { cwd: project, env, encoding: 'utf8' });
const read = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
const backups = (path: string): string[] => readdirSync(join(path, '..')).filter((f) => f.includes('.toolshelf-backup-'));

describe('toolshelf init', () => {
  it('a dry run reports every file and writes nothing', () => {
    const run = init();
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Claude Desktop (user) ${files.desktop}: 1 server(s): rec`);
    expect(run.stdout).toContain(`Claude Code (project) ${files.claudeProject}: 1 server(s): rec`);
    expect(run.stdout).toContain(`Cursor (user) ${files.cursor}: not valid JSON`);
    expect(run.stdout).toContain(`Codex (user) ${files.codex}: 1 server(s): other`);
    expect(run.stdout).toContain(`${files.config} (new): adds rec, other`);
    expect(run.stdout).toContain('note: "rec": env.API_TOKEN is now ${API_TOKEN}');
    expect(run.stdout).not.toContain('tok-123');
    expect(run.stdout).toContain('Dry run: nothing was written.');
    for (const [name, text] of Object.entries(originals)) expect(read(files[name as keyof typeof files])).toBe(text);
    expect(existsSync(files.config)).toBe(false);
  });

  it('--apply writes the config and one toolshelf entry per client, and that entry serves the imported servers', async () => {
    const run = init('--apply');
    expect(run.status).toBe(0);
    expect(JSON.parse(read(files.config)!).mcpServers.rec.env).toEqual({ TOOLS_FILE: toolsFile, API_TOKEN: '${API_TOKEN}' });
    const desktop = JSON.parse(read(files.desktop)!);
    expect(desktop.globalShortcut).toBe('Ctrl+Space');
    expect(Object.keys(desktop.mcpServers)).toEqual(['toolshelf']);
    expect(desktop.mcpServers.toolshelf).toEqual({ command: process.execPath, args: [cliPath, '--config', files.config], env: { API_TOKEN: 'tok-123' } });
    expect(JSON.parse(read(files.claudeProject)!).mcpServers.toolshelf).toMatchObject({ type: 'stdio', alwaysLoad: true });
    expect(read(files.codex)).toContain('[mcp_servers.toolshelf]');
    expect(read(files.codex)).not.toContain('[mcp_servers.other]');
    expect(read(files.cursor)).toBe(originals.cursor);
    for (const path of [files.desktop, files.claudeProject, files.codex]) expect(backups(path)).toHaveLength(1);
    expect(backups(files.cursor)).toEqual([]);

    const entry = desktop.mcpServers.toolshelf as { command: string; args: string[]; env: Record<string, string> };
    const client = new Client({ name: 'init-e2e', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...process.env, ...entry.env } as Record<string, string>, stderr: 'ignore' }));
    try {
      expect(textOf(await client.callTool({ name: 'rec__ping', arguments: {} }))).toMatch(/^ping from \d+/);
      expect(textOf(await client.callTool({ name: 'other__ping', arguments: {} }))).toMatch(/^ping from \d+/);
    } finally {
      await client.close();
    }

    const again = init();
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('has a toolshelf entry');
    expect(again.stdout).toContain('Nothing to do.');
  });

  it('--undo puts every file back as it was', () => {
    const run = init('--undo');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`removed ${files.config} (init created it)`);
    for (const [name, text] of Object.entries(originals)) expect(read(files[name as keyof typeof files])).toBe(text);
    expect(existsSync(files.config)).toBe(false);
    for (const path of [files.desktop, files.claudeProject, files.codex]) expect(backups(path)).toEqual([]);
    expect(init('--undo').stdout).toContain('Nothing to undo');
  });

  it('--undo leaves a file edited since the apply as it is, and says where its backup is', () => {
    expect(init('--apply', '--client', 'claude-desktop').status).toBe(0);
    expect(read(files.claudeProject)).toBe(originals.claudeProject);
    writeFileSync(files.desktop, '{"mcpServers": {}}\n');
    const run = init('--undo');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`${files.desktop} changed since init; left as it is (its backup: ${files.desktop}.toolshelf-backup-`);
    expect(read(files.desktop)).toBe('{"mcpServers": {}}\n');
    expect(existsSync(files.config)).toBe(false);
  });

  it('refuses an unknown client, and --apply with --undo', () => {
    const unknown = init('--client', 'claud-desktop');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown client "claud-desktop"');
    expect(init('--apply', '--undo').status).toBe(2);
  });
});
