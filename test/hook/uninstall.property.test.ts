// `hook uninstall` in a settings file (issue 55 item 3): SPEC "removes only loopledger's entries",
// "keeping everything else in the file byte for byte". Property: for any settings of any layout
// holding the user's own hooks (and other agents' guards), installing the guard and then
// uninstalling it gives back the file exactly as it was, for every agent whose guard lives in a
// settings file; and an uninstall of a file the guard is in keeps every other handler.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editSettingsText } from '../../src/hook/jsonc-edit.js';
import { isGuardOf, settingsWithGuard } from '../../src/hook/install.js';
import { hookOf } from '../../src/hook/payload.js';
import { parseWithComments } from '../../src/hook/settings-file.js';
import { uninstallText } from '../../src/hook/uninstall.js';
import type { SettingsInstall } from '../../src/hook/contract.js';
import type { AgentName } from '../../src/agents/types.js';

const SETTINGS_AGENTS: AgentName[] = ['claude-code', 'gemini', 'codex', 'qwen', 'copilot', 'droid'];

function fileOf(text: string) {
  return { path: '/x/settings.json', target: '/x/settings.json', text, value: parseWithComments(text), mode: 0o644, hasComments: false };
}

describe.each(SETTINGS_AGENTS)('hook uninstall %s', (agent) => {
  const install = hookOf(agent).install as SettingsInstall;
  const field = install.commandField;
  const isGuard = isGuardOf(agent);
  const other = agent === 'codex' ? 'gemini' : 'codex';
  const handler = fc.constantFrom({ type: 'command', [field]: './lint.sh' }, { type: 'command', [field]: `loopledger hook ${other} --mode off`, timeout: 60 }, { type: 'command', [field]: 'echo done' });
  const entry: fc.Arbitrary<unknown> = install.nesting === 'groups' ? fc.record({ matcher: fc.constant('*'), hooks: fc.array(handler, { minLength: 1, maxLength: 3 }) }) : handler;
  const events = install.events.map((e) => e.event);
  const value = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean());
  const settings = fc.record({
    head: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), value, { maxKeys: 3 }),
    // No `hooks` at all, or hooks with events of their own (an empty list is the user's too, and stays).
    hooks: fc.option(fc.dictionary(fc.constantFrom(...events, 'Notification'), fc.array(entry, { minLength: 1, maxLength: 3 }), { minKeys: 1, maxKeys: 3 }), { nil: undefined }),
    tail: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), value, { maxKeys: 3 }),
  });

  it('property: install then uninstall gives the file back byte for byte, in any layout', () => {
    fc.assert(
      fc.property(settings, fc.constantFrom(0, 2, 4, '\t'), ({ head, hooks, tail }, indent) => {
        const object = { ...head, ...(hooks === undefined ? {} : { hooks }), ...Object.fromEntries(Object.entries(tail).map(([k, v]) => [`z${k}`, v])) };
        const text = `${JSON.stringify(object, null, indent)}\n`;
        const merged = settingsWithGuard(JSON.parse(text), agent, ['--mode', 'enforce'], '/opt/ll/loopledger', () => false);
        const installed = editSettingsText(text, merged.settings, merged);
        expect(installed).not.toBeNull();
        const back = uninstallText(fileOf(installed!), install, isGuard);
        expect(back).toBe(text);
      }),
      { numRuns: 150 },
    );
  });

  it('removes every guard handler of this agent and keeps the user\'s beside it in the same group', () => {
    const guard = { type: 'command', [field]: `loopledger hook ${agent} --mode telemetry` };
    const mine = { type: 'command', [field]: './lint.sh' };
    const list = install.nesting === 'groups' ? [{ matcher: '*', hooks: [mine, guard] }, { hooks: [guard] }] : [mine, guard, guard];
    const text = `${JSON.stringify({ model: 'x', hooks: { [events[0]!]: list } }, null, 2)}\n`;
    const back = uninstallText(fileOf(text), install, isGuard);
    const want = install.nesting === 'groups' ? [{ matcher: '*', hooks: [mine] }] : [mine];
    expect(JSON.parse(back!)).toEqual({ model: 'x', hooks: { [events[0]!]: want } });
  });
});
