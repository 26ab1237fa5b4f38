// Every agent of the registry has its live guard (issue 55 item 1: a registry entry without its
// parts fails here): a hook contract in its folder, a row in docs/hook.md, a case in the hook
// tests that plays its payloads, and `hook install` writing it somewhere an uninstall takes it back from.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/agents/index.js';
import { ROOT } from '../cli/helpers.js';

const DOCS = readFileSync(join(ROOT, 'docs', 'hook.md'), 'utf8');
const PLAYED = ['e2e.test.ts', 'agents-more.test.ts', 'install-more.test.ts', 'guard-npm.test.ts', 'guard-openclaw.test.ts'].map((f) => readFileSync(join(ROOT, 'test', 'hook', f), 'utf8')).join('\n');

/** SPEC 0.4 "Agents": the eight the guard runs in, and those of issue 58 item 3; the stores of the others are read offline only so far. */
const GUARDED = ['claude-code', 'codex', 'gemini', 'opencode', 'kilo', 'qwen', 'copilot', 'cline', 'droid', 'pi', 'openclaw'];

it('the agents with a live guard are SPEC\'s eight, Droid, pi and OpenClaw; every other agent of the registry is read offline only', () => {
  expect(AGENTS.filter((a) => a.hook !== undefined).map((a) => a.name).sort()).toEqual([...GUARDED].sort());
});

describe.each(AGENTS.filter((a) => GUARDED.includes(a.name)).map((a) => [a.name, a] as const))('%s', (name, agent) => {
  it('declares its hook contract in its folder', () => {
    expect(agent.hook, `src/agents/${name}/hook.ts`).toBeDefined();
    const install = agent.hook!.install;
    expect(install.kind === 'settings' ? install.events.length : install.files.length).toBeGreaterThan(0);
  });

  it('is named in docs/hook.md with its label, and its payloads are played in test/hook', () => {
    expect(DOCS).toContain(`\`${name}\``);
    expect(DOCS).toContain(agent.label);
    expect(PLAYED).toMatch(new RegExp(`['"]${name}['"]`));
  });
});
