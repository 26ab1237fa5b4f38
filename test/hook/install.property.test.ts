// Open-ended inputs of `hook install`: any settings a user may have (other hooks, guards reached
// by any launcher, in any group, several times), and any JSON with comments Gemini CLI accepts.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { settingsWithGuard, settingsEntry } from '../../src/hook/install.js';
import { editSettingsText } from '../../src/hook/jsonc-edit.js';
import { parseWithComments, readSettings } from '../../src/hook/settings-file.js';
import { scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-install-prop-');
afterAll(() => tmp.cleanup());

const AGENT = 'claude-code';
const EVENTS = Object.keys(settingsEntry(AGENT));

/** Guards as people write them: each of these must be recognised. */
const guardCommand = fc.constantFrom(
  'loopledger hook claude-code',
  '/opt/ll/bin/loopledger hook claude-code --mode enforce',
  'node /x/bin/loopledger.js hook claude-code',
  'npx -y loopledger@0.3.0 hook claude-code 2>/dev/null',
  "'/my tools/loopledger' hook claude-code --state-dir '/a b'",
  'env LL=1 pnpm dlx loopledger hook claude-code',
);
/** Handlers that are not this agent's guard, including look-alikes. */
const otherCommand = fc.oneof(
  fc.constantFrom('./lint.sh', 'loopledger hook gemini', 'loopledger hook doctor claude-code', 'echo loopledger hook claude-code'),
  fc.string({ maxLength: 20 }),
);
const handler = fc.oneof(
  guardCommand.map((command) => ({ type: 'command', command, guard: true })),
  otherCommand.map((command) => ({ type: 'command', command, guard: false })),
);
const group = fc.record({ matcher: fc.constantFrom('*', 'Bash', 'Edit|Write'), hooks: fc.array(handler, { maxLength: 3 }) }, { requiredKeys: ['hooks'] });
const settings = fc.record({
  model: fc.string(),
  hooks: fc.dictionary(fc.constantFrom(...EVENTS, 'UserPromptSubmit', 'Notification'), fc.array(group, { maxLength: 3 })),
}, { requiredKeys: ['hooks'] });

type Handler = { type: string; command: string; guard?: boolean };
type Groups = { matcher?: string; hooks: Handler[] }[];

describe('settingsWithGuard over any settings', () => {
  it('exactly one guard per event it installs, every other handler kept in order, every other key and event untouched', () => {
    fc.assert(
      fc.property(settings, (raw) => {
        // The `guard` flag is the generator's note of what it made, stripped before the merge.
        const strip = (s: typeof raw) => JSON.parse(JSON.stringify(s, (k, v) => (k === 'guard' ? undefined : v))) as typeof raw;
        const { settings: merged } = settingsWithGuard(strip(raw), AGENT, ['--mode', 'enforce']);
        const hooks = merged.hooks as Record<string, Groups>;
        expect(merged.model).toBe(raw.model);
        for (const [event, groups] of Object.entries(raw.hooks)) {
          const others = groups.flatMap((g) => g.hooks.filter((h) => !h.guard).map((h) => h.command));
          const after = hooks[event]!.flatMap((g) => g.hooks);
          const isGuard = (c: string) => / hook claude-code( |$)/.test(c) && !c.startsWith('echo');
          expect(after.filter((h) => !isGuard(h.command)).map((h) => h.command)).toEqual(others);
          if (!EVENTS.includes(event)) expect(hooks[event]).toEqual(strip(raw).hooks[event]);
        }
        for (const event of EVENTS) {
          const guards = hooks[event]!.flatMap((g) => g.hooks).filter((h) => / hook claude-code --mode enforce( |$)/.test(h.command));
          expect(guards).toHaveLength(1);
        }
        // And a second merge changes nothing.
        expect(settingsWithGuard(merged, AGENT, ['--mode', 'enforce']).settings).toEqual(merged);
      }),
      { numRuns: 300 },
    );
  });
});

describe('Gemini settings with comments', () => {
  const comment = fc.oneof(
    fc.string({ maxLength: 12 }).filter((s) => !s.includes('\n')).map((s) => `// ${s}\n`),
    fc.string({ maxLength: 12 }).filter((s) => !s.includes('*/')).map((s) => `/* ${s} */`),
  );
  const json = fc.jsonValue({ maxDepth: 3 });

  it('read as the same value as without them, wherever comments sit between tokens, whatever the strings hold', () => {
    fc.assert(
      fc.property(json, fc.array(comment, { maxLength: 30 }), (value, comments) => {
        // Comments go after any structural token; strings that hold "//" or "/*" stay strings.
        let i = 0;
        const text = JSON.stringify(value, null, 1).replace(/([{}[\],:])/g, (m, _t, offset: number, whole: string) => {
          // Never inside a string: count the unescaped quotes before this token.
          const quotes = (whole.slice(0, offset).match(/(?<!\\)(?:\\\\)*"/g) ?? []).length;
          return quotes % 2 === 0 && i < comments.length ? `${m}${comments[i++]}` : m;
        });
        const path = join(tmp.dir, 'settings.json');
        writeFileSync(path, `${comments.length > 0 ? '// head\n' : ''}${text}`);
        const file = readSettings(path, true);
        expect(file.value).toEqual(JSON.parse(JSON.stringify(value)));
        expect(file.hasComments).toBe(comments.length > 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('merging the guard into a file with comments, by editing its text', () => {
  const comment = fc.constantFrom('// a note\n', '/* a note */', ' // "quoted", {braces}\n', '/* multi\n line */');
  const gemini = fc.record({
    general: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    hooks: fc.record({
      enabled: fc.boolean(),
      BeforeTool: fc.array(fc.record({ matcher: fc.constant('write_file'), hooks: fc.constant([{ type: 'command', command: './check.sh' }]) }), { maxLength: 2 }),
      // A guard installed earlier, with other arguments: replaced in place.
      // (A placeholder string while comments are sprinkled: none lands inside the handler.)
      AfterAgent: fc.constantFrom([], [{ hooks: ['GUARD'] }]),
      Notification: fc.constant([]),
    }, { requiredKeys: [] }),
  }, { requiredKeys: [] });

  it('succeeds for any such settings laid out any way, keeps every comment (every byte when it only adds), and reads back as the merge', () => {
    fc.assert(
      fc.property(gemini, fc.constantFrom(0, 1, 2, 4, '\t'), fc.array(comment, { maxLength: 12 }), fc.nat(), (value, indent, comments, seed) => {
        // Comments after random structural tokens outside strings (the token's position decides).
        let k = 0;
        const text = JSON.stringify(value, null, indent).replace(/([{[,])/g, (m, _t, offset: number, whole: string) => {
          const quotes = (whole.slice(0, offset).match(/(?<!\\)(?:\\\\)*"/g) ?? []).length;
          return quotes % 2 === 0 && (offset + seed) % 3 === 0 && k < comments.length ? `${m}${comments[k++]}` : m;
        });
        const guard = JSON.stringify({ type: 'command', command: 'loopledger hook gemini --mode off', timeout: 9 });
        const original = `// settings\n${text.replace('"GUARD"', guard)}\n`;
        const result = settingsWithGuard(parseWithComments(original), 'gemini', ['--mode', 'enforce'], '/opt/ll/loopledger');
        const { settings: merged, updated } = result;
        const edited = editSettingsText(original, merged, result);
        expect(edited).not.toBeNull();
        expect(parseWithComments(edited!)).toEqual(merged);
        // Every comment, in order.
        const commentsOf = (t: string) => t.match(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g) ?? [];
        expect(commentsOf(edited!.replaceAll(/"(?:[^"\\]|\\.)*"/g, '""'))).toEqual(commentsOf(original.replaceAll(/"(?:[^"\\]|\\.)*"/g, '""')));
        if (updated.length === 0) {
          let j = 0;
          for (const c of edited!) if (j < original.length && c === original[j]) j++;
          expect(j).toBe(original.length);
        }
      }),
      { numRuns: 300 },
    );
  });
});
