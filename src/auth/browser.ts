/**
 * Opening the authorization URL: the command in `BROWSER` when set (the usual convention: the URL
 * is its last argument; `%s` in it is replaced instead when present), else the platform's opener.
 * The URL is always printed on stderr too, so a user without a browser can copy it. Source:
 * docs/sign-in.md.
 */
import { spawn } from 'node:child_process';

/** The program and arguments that open `url`; pure. */
export function browserCommand(url: string, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): { command: string; args: string[] } {
  const browser = env.BROWSER?.split(':')[0]?.trim();
  if (browser) {
    const words = browser.split(/\s+/);
    const args = words.slice(1);
    return args.some((a) => a.includes('%s')) ? { command: words[0]!, args: args.map((a) => a.replaceAll('%s', url)) } : { command: words[0]!, args: [...args, url] };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url.replaceAll('&', '^&')] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Starts the opener for `url` detached and ignores its fate (a missing opener is not an error: the
 * URL is on stderr). `err` gets the printed line, which says what the URL is for (`purpose`).
 */
export function openBrowser(url: string, err: (line: string) => void, env: Readonly<Record<string, string | undefined>> = process.env, purpose = 'to sign in'): void {
  err(`Open this URL in a browser ${purpose}:\n  ${url}`);
  const { command, args } = browserCommand(url, env, process.platform);
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: process.platform !== 'win32' });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener on this machine: the printed URL is the way.
  }
}
