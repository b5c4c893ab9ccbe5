/**
 * Where each MCP client keeps its server entries for the current user, on Linux, macOS and Windows,
 * and in a project folder (docs/init.md). Pure: the platform, environment and folders are passed in.
 * Sources: each client's documentation — Claude Desktop (`claude_desktop_config.json` under the app's
 * config folder), Cursor (`~/.cursor/mcp.json`, `.cursor/mcp.json`), Claude Code (`~/.claude.json`
 * user scope, `.mcp.json` project scope), VS Code (user `mcp.json`, `.vscode/mcp.json`, key `servers`),
 * Windsurf (`~/.codeium/windsurf/mcp_config.json`), Codex (`$CODEX_HOME/config.toml`, default `~/.codex`).
 */
import { posix, win32 } from 'node:path';

/** The clients `toolshelf init` knows. */
export type ClientId = 'claude-desktop' | 'cursor' | 'claude-code' | 'vscode' | 'windsurf' | 'codex';

/** Every client id, in the order files are reported. */
export const CLIENT_IDS: readonly ClientId[] = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'codex'];

/** A client's name as its users know it. */
export const CLIENT_LABELS: Readonly<Record<ClientId, string>> = {
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  'claude-code': 'Claude Code',
  vscode: 'VS Code',
  windsurf: 'Windsurf',
  codex: 'Codex',
};

/**
 * How a file holds its entries: JSON under `mcpServers`, JSON(C) under `servers` (VS Code), or TOML
 * tables `[mcp_servers.NAME]` (Codex).
 */
export type FileFormat = 'mcpServers' | 'servers' | 'codex-toml';

/** One client config file that may exist. */
export interface ClientFile {
  readonly client: ClientId;
  /** `user`: the current user's; `project`: in the project folder. */
  readonly scope: 'user' | 'project';
  readonly path: string;
  readonly format: FileFormat;
}

/** The variables the paths depend on. */
export interface PathEnv {
  readonly HOME?: string | undefined;
  readonly USERPROFILE?: string | undefined;
  readonly APPDATA?: string | undefined;
  readonly XDG_CONFIG_HOME?: string | undefined;
  readonly CODEX_HOME?: string | undefined;
}

/** The home folder: `USERPROFILE` (else `HOME`) on Windows, `HOME` elsewhere. Throws when unset. */
export function homeOf(platform: NodeJS.Platform, env: PathEnv): string {
  const home = platform === 'win32' ? env.USERPROFILE || env.HOME : env.HOME;
  if (!home) throw new Error(platform === 'win32' ? 'neither USERPROFILE nor HOME is set' : 'HOME is not set');
  return home;
}

/**
 * The folder applications keep per-user settings in: `%APPDATA%` on Windows (default
 * `HOME\AppData\Roaming`), `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` (default
 * `~/.config`) elsewhere (XDG Base Directory Specification).
 */
export function appConfigDir(platform: NodeJS.Platform, env: PathEnv): string {
  const home = homeOf(platform, env);
  // An empty variable counts as unset (XDG Base Directory Specification).
  if (platform === 'win32') return env.APPDATA || win32.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || posix.join(home, '.config');
}

/** Where `toolshelf init` writes `servers.config.json` by default: `<app config folder>/toolshelf/servers.config.json`. */
export function defaultConfigPath(platform: NodeJS.Platform, env: PathEnv): string {
  return (platform === 'win32' ? win32 : posix).join(appConfigDir(platform, env), 'toolshelf', 'servers.config.json');
}

/** Every client config file that may hold server entries for this user, and those of `projectDir` when given. */
export function clientFiles(platform: NodeJS.Platform, env: PathEnv, projectDir?: string): ClientFile[] {
  const { join } = platform === 'win32' ? win32 : posix;
  const home = homeOf(platform, env);
  const app = appConfigDir(platform, env);
  const files: ClientFile[] = [
    { client: 'claude-desktop', scope: 'user', path: join(app, 'Claude', 'claude_desktop_config.json'), format: 'mcpServers' },
    { client: 'claude-code', scope: 'user', path: join(home, '.claude.json'), format: 'mcpServers' },
    { client: 'cursor', scope: 'user', path: join(home, '.cursor', 'mcp.json'), format: 'mcpServers' },
    { client: 'vscode', scope: 'user', path: join(app, 'Code', 'User', 'mcp.json'), format: 'servers' },
    { client: 'windsurf', scope: 'user', path: join(home, '.codeium', 'windsurf', 'mcp_config.json'), format: 'mcpServers' },
    { client: 'codex', scope: 'user', path: join(env.CODEX_HOME || join(home, '.codex'), 'config.toml'), format: 'codex-toml' },
  ];
  if (projectDir !== undefined) {
    files.push(
      { client: 'claude-code', scope: 'project', path: join(projectDir, '.mcp.json'), format: 'mcpServers' },
      { client: 'cursor', scope: 'project', path: join(projectDir, '.cursor', 'mcp.json'), format: 'mcpServers' },
      { client: 'vscode', scope: 'project', path: join(projectDir, '.vscode', 'mcp.json'), format: 'servers' },
    );
  }
  return files;
}
