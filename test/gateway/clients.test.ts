import { describe, expect, it } from 'vitest';
import { bridgeEnabled, descriptionLimit, discoveryMode } from '../../src/gateway/clients.js';

describe('call_tool bridge decision', () => {
  it('auto: on for clients known to ignore list_changed and for unknown ones, off for those that honour it', () => {
    expect(bridgeEnabled('auto', 'claude-ai')).toBe(true);
    expect(bridgeEnabled('auto', 'cursor-vscode')).toBe(true);
    expect(bridgeEnabled('auto', 'some-new-client')).toBe(true);
    expect(bridgeEnabled('auto', undefined)).toBe(true);
    expect(bridgeEnabled('auto', 'claude-code')).toBe(false);
    expect(bridgeEnabled('always', 'claude-code')).toBe(true);
    expect(bridgeEnabled('never', 'claude-ai')).toBe(false);
  });

  it('knows Claude Code cuts descriptions at 2,048 characters', () => {
    expect(descriptionLimit('claude-code')).toBe(2048);
    expect(descriptionLimit('claude-ai')).toBeUndefined();
  });
});

describe('discovery mode decision', () => {
  it('auto: client for Codex, which always defers MCP tools behind its own search; own for everyone else', () => {
    expect(discoveryMode('auto', 'codex-mcp-client')).toBe('client');
    expect(discoveryMode('auto', 'Codex')).toBe('client');
    for (const name of ['claude-code', 'github-copilot-developer', 'Visual Studio Code', 'claude-ai', 'cursor-vscode', 'mcp-inspector', 'some-new-client', '', undefined]) {
      expect(discoveryMode('auto', name)).toBe('own');
    }
  });

  it('a fixed setting applies to every client', () => {
    expect(discoveryMode('own', 'codex-mcp-client')).toBe('own');
    expect(discoveryMode('client', 'claude-code')).toBe('client');
    expect(discoveryMode('client', 'cursor-vscode')).toBe('client');
    expect(discoveryMode('client', undefined)).toBe('client');
  });
});
