import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/agents/index.js';
import { readAgentType, storeLocations, storeProject, subagentFile } from '../../src/read/stores.js';
import { scratchDir } from './tmp.js';

const scratch = scratchDir('loopledger-stores-');
afterAll(() => scratch.cleanup());

function dirs(...paths: string[]): void {
  for (const p of paths) mkdirSync(join(scratch.dir, p), { recursive: true });
}

describe('storeLocations', () => {
  // SPEC: "`$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`, `$CODEX_HOME/sessions` and
  // `archived_sessions` or `~/.codex/…`, the Gemini CLI's `~/.gemini/tmp/*/chats`".
  it('looks in the home folder by default, and finds what is there', async () => {
    dirs('h1/.claude/projects', 'h1/.codex/sessions', 'h1/.gemini/tmp/aaa/chats', 'h1/.gemini/tmp/bbb', 'h1/.gemini/tmp/ccc/chats');
    const home = join(scratch.dir, 'h1');
    const found = await storeLocations({ HOME: home });
    // The first agents' places, by hand; every later agent's (each its own test) is looked in, empty here.
    expect(new Set(found.map((l) => l.agent))).toEqual(new Set(AGENTS.map((a) => a.name)));
    expect(found.slice(9).filter((l) => l.roots.length > 0 || l.via !== null)).toEqual([]);
    expect(found.slice(0, 9)).toEqual([
      { agent: 'claude-code', path: join(home, '.claude/projects'), roots: [join(home, '.claude/projects')], via: null },
      { agent: 'codex', path: join(home, '.codex/sessions'), roots: [join(home, '.codex/sessions')], via: null },
      { agent: 'codex', path: join(home, '.codex/archived_sessions'), roots: [], via: null },
      { agent: 'gemini', path: join(home, '.gemini/tmp/*/chats'), roots: [join(home, '.gemini/tmp/aaa/chats'), join(home, '.gemini/tmp/ccc/chats')], via: null },
      { agent: 'opencode', path: join(home, '.local/share/opencode/opencode.db'), roots: [], via: null },
      { agent: 'kilo', path: join(home, '.local/share/kilo/kilo.db'), roots: [], via: null },
      { agent: 'copilot', path: join(home, '.copilot/session-state'), roots: [], via: null },
      { agent: 'qwen', path: join(home, '.qwen/projects/*/chats'), roots: [], via: null },
      { agent: 'cline', path: join(home, '.cline/data/sessions'), roots: [], via: null },
    ]);
  });

  it('CLAUDE_CONFIG_DIR and CODEX_HOME move the Claude Code and Codex stores', async () => {
    dirs('h2', 'cc/projects', 'cx/archived_sessions');
    const found = await storeLocations({ HOME: join(scratch.dir, 'h2'), CLAUDE_CONFIG_DIR: join(scratch.dir, 'cc'), CODEX_HOME: join(scratch.dir, 'cx') });
    expect(found.slice(9).filter((l) => l.roots.length > 0 || l.via !== null)).toEqual([]);
    expect(found.slice(0, 9).map((l) => [l.agent, l.path, l.roots.length, l.via])).toEqual([
      ['claude-code', join(scratch.dir, 'cc/projects'), 1, 'CLAUDE_CONFIG_DIR'],
      ['codex', join(scratch.dir, 'cx/sessions'), 0, 'CODEX_HOME'],
      ['codex', join(scratch.dir, 'cx/archived_sessions'), 1, 'CODEX_HOME'],
      ['gemini', join(scratch.dir, 'h2/.gemini/tmp/*/chats'), 0, null],
      ['opencode', join(scratch.dir, 'h2/.local/share/opencode/opencode.db'), 0, null],
      ['kilo', join(scratch.dir, 'h2/.local/share/kilo/kilo.db'), 0, null],
      ['copilot', join(scratch.dir, 'h2/.copilot/session-state'), 0, null],
      ['qwen', join(scratch.dir, 'h2/.qwen/projects/*/chats'), 0, null],
      ['cline', join(scratch.dir, 'h2/.cline/data/sessions'), 0, null],
    ]);
  });
});

describe('what a store path says about a session', () => {
  it('the Claude Code project folder, for sessions and their sub-agents', () => {
    expect(storeProject('/h/.claude/projects/-home-me-app/0c1d.jsonl')).toEqual({ agent: 'claude-code', project: '-home-me-app' });
    expect(storeProject('/h/.claude/projects/-home-me-app/0c1d/subagents/agent-a1.jsonl')).toEqual({ agent: 'claude-code', project: '-home-me-app' });
    expect(storeProject('C:\\Users\\me\\.claude\\projects\\C--src-app\\0c1d.jsonl')).toEqual({ agent: 'claude-code', project: 'C--src-app' });
  });

  it('the Gemini CLI project folder', () => {
    expect(storeProject('/h/.gemini/tmp/9f86d08/chats/session-1.json')).toEqual({ agent: 'gemini', project: '9f86d08' });
    expect(storeProject('/h/.gemini/tmp/9f86d08/chats/parent-id/sub.jsonl')).toEqual({ agent: 'gemini', project: '9f86d08' });
  });

  it('nothing for paths outside a store layout', () => {
    expect(storeProject('/h/runs/a.jsonl')).toBeNull();
    expect(storeProject('/h/.codex/sessions/2025/10/01/rollout-x.jsonl')).toBeNull();
    expect(storeProject('/h/.claude/projects/a.jsonl')).toBeNull();
  });

  it('a Claude Code 2.1 sub-agent file names its parent session and agent', () => {
    expect(subagentFile('/p/-home-me-app/0c1d-parent/subagents/agent-a1b2.jsonl')).toEqual({ parent: '0c1d-parent', agentId: 'a1b2' });
    expect(subagentFile('/p/-home-me-app/agent-a1b2.jsonl')).toBeNull();
    expect(subagentFile('/p/subagents/agent-a1b2.meta.json')).toBeNull();
  });

  it('agentType comes from the manifest beside the file, when there is one that reads', async () => {
    const dir = join(scratch.dir, 'p', 'sess', 'subagents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent-a.meta.json'), JSON.stringify({ agentType: 'Explore', description: 'find things' }));
    writeFileSync(join(dir, 'agent-b.meta.json'), '{ not json');
    writeFileSync(join(dir, 'agent-c.meta.json'), JSON.stringify({ agentType: '' }));
    expect(await readAgentType(join(dir, 'agent-a.jsonl'))).toBe('Explore');
    expect(await readAgentType(join(dir, 'agent-b.jsonl'))).toBeNull();
    expect(await readAgentType(join(dir, 'agent-c.jsonl'))).toBeNull();
    expect(await readAgentType(join(dir, 'agent-none.jsonl'))).toBeNull();
    expect(await readAgentType(join(scratch.dir, 'p', 'sess.jsonl'))).toBeNull();
  });
});
