// Every agent of the registry has its live guard (issue 55 item 1: a registry entry without its
// parts fails here): a hook contract in its folder, a row in docs/hook.md, a case in the hook
// tests that plays its payloads, and `hook install` writing it somewhere an uninstall takes it back from.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/agents/index.js';
import { ROOT } from '../cli/helpers.js';

const DOCS = readFileSync(join(ROOT, 'docs', 'hook.md'), 'utf8');
const PLAYED = ['e2e.test.ts', 'agents-more.test.ts', 'install-more.test.ts'].map((f) => readFileSync(join(ROOT, 'test', 'hook', f), 'utf8')).join('\n');

describe.each(AGENTS.map((a) => [a.name, a] as const))('%s', (name, agent) => {
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
