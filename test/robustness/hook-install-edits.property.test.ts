// Issue 53, items 1 and 4-6, over open inputs: what install marks reviewed and where reviews go
// when handlers move, Codex's config.toml in any layout the reviews may take, and settings files
// in any layout, edited as text. A TOML parser the code does not use
// (smol-toml) is the oracle: the edited config.toml parses, and to exactly the intended reviews
// with everything else as it was; the edited settings keep every byte outside the guard's entries.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { CodexConfigError, editHookStates } from '../../src/hook/codex-config.js';
import { planCodexReview } from '../../src/hook/codex-trust.js';
import { isCodexGuard, settingsWithGuard } from '../../src/hook/install.js';
import { editSettingsText } from '../../src/hook/jsonc-edit.js';

const PATH = '/home/u/.codex/hooks.json';
const key = (event: string, g: number, h: number) => `${PATH}:${event}:${g}:${h}`;
const reviewKey = fc.tuple(fc.constantFrom('pre_tool_use', 'post_tool_use', 'stop'), fc.nat(2), fc.nat(2)).map(([e, g, h]) => key(e, g, h));

/** A key as a TOML table name part, in any quoting a person or a tool may write. */
const spelled = (k: string, how: number) => (how === 0 ? JSON.stringify(k) : how === 1 ? `'${k}'` : ` ${JSON.stringify(k)} `);

const review = fc.record({ key: reviewKey, hash: fc.stringMatching(/^sha256:[0-9a-f]{8}$/), enabled: fc.option(fc.boolean(), { nil: undefined }), how: fc.nat(2), comment: fc.boolean(), inline: fc.boolean() });
const other = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { maxKeys: 2 })), { maxKeys: 4 });

/** config.toml text from reviews (some as their own tables, some inline in a [hooks.state] table) and other settings. */
function render(settings: Record<string, unknown>, reviews: { key: string; hash: string; enabled?: boolean; how: number; comment: boolean; inline: boolean }[]): string {
  const body = Object.keys(settings).length > 0 ? `${stringifyToml(settings)}\n` : '';
  const inline = reviews.filter((r) => r.inline);
  const tables = reviews.filter((r) => !r.inline);
  let text = body;
  if (inline.length > 0) text += `\n[hooks.state]\n${inline.map((r) => `${JSON.stringify(r.key)} = { trusted_hash = ${JSON.stringify(r.hash)}${r.enabled === undefined ? '' : `, enabled = ${r.enabled}`} }`).join('\n')}\n`;
  for (const r of tables) {
    text += `\n[hooks.state.${spelled(r.key, r.how)}]${r.comment ? ' # reviewed' : ''}\ntrusted_hash = ${JSON.stringify(r.hash)}\n${r.enabled === undefined ? '' : `enabled = ${r.enabled}\n`}`;
  }
  return text;
}

describe("Codex's config.toml, edited as text (items 4, 5)", () => {
  it('property: the edit parses to exactly the intended reviews with the rest unchanged, or is refused; only reviews written inline for a key it must change are refused', () => {
    fc.assert(
      fc.property(other, fc.uniqueArray(review, { selector: (r) => r.key, maxLength: 5 }), fc.uniqueArray(reviewKey, { maxLength: 3 }), fc.uniqueArray(reviewKey, { maxLength: 3 }), (settings, reviews, trustKeys, moveKeys) => {
        const text = render(settings, reviews);
        const before = parseToml(text) as { hooks?: { state?: Record<string, Record<string, unknown>> } } & Record<string, unknown>;
        // Moves as install's are: a handler shifts down by one because the one before it (a second
        // guard) was removed, whose review goes, unless that one moves on too.
        const renames = new Map<string, string>();
        const deletes = new Set<string>();
        for (const k of moveKeys) {
          const [e, g, h] = k.split(':').slice(-3);
          if (Number(h) === 0) {
            deletes.add(k);
            continue;
          }
          const to = key(e!, Number(g), Number(h) - 1);
          renames.set(k, to);
          if (!moveKeys.includes(to)) deletes.add(to);
        }
        const trust = new Map(trustKeys.map((k) => [k, `sha256:${'ab'.repeat(32)}`]));
        const touched = new Set([...renames.keys(), ...renames.values(), ...deletes, ...trust.keys()]);
        const mustRefuse = reviews.some((r) => r.inline && touched.has(r.key));
        let edited: string;
        try {
          edited = editHookStates(text, { renames, deletes, trust });
        } catch (e) {
          expect(e).toBeInstanceOf(CodexConfigError);
          expect(mustRefuse, (e as Error).message).toBe(true);
          return;
        }
        expect(mustRefuse).toBe(false);
        const after = parseToml(edited) as typeof before;
        const want = structuredClone(before.hooks?.state ?? {}) as Record<string, Record<string, unknown>>;
        const moved = new Map<string, Record<string, unknown>>();
        for (const [from, to] of renames) {
          if (want[from] !== undefined) moved.set(to, want[from]!);
          delete want[from];
        }
        for (const k of deletes) delete want[k];
        for (const [k, v] of moved) want[k] = v;
        for (const [k, h] of trust) want[k] = { ...want[k], trusted_hash: h };
        expect(JSON.parse(JSON.stringify(after.hooks?.state ?? {}))).toEqual(JSON.parse(JSON.stringify(want)));
        const rest = (v: typeof before) => JSON.parse(JSON.stringify({ ...v, hooks: undefined })) as unknown;
        expect(rest(after)).toEqual(rest(before));
      }),
      { numRuns: 400 },
    );
  });

  it('a key whose path holds any character is written so it parses back to itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !/[\ud800-\udfff]/.test(s) && s.trim() === s), (dir) => {
        const k = `/h/${dir}/hooks.json:stop:0:0`;
        const edited = editHookStates('', { renames: new Map(), deletes: new Set(), trust: new Map([[k, 'sha256:x']]) });
        expect(Object.keys((parseToml(edited) as { hooks: { state: object } }).hooks.state)).toEqual([k]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('settings edited as text, never rewritten from their parse (item 6)', () => {
  const big = fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 30n }).map((n) => ({ $big: n.toString() }));
  const value = fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), big);
  const handler = fc.constantFrom({ type: 'command', command: './lint.sh' }, { type: 'command', command: 'loopledger hook claude-code --mode off', timeout: 60 }, { type: 'command', command: 'npx loopledger hook claude-code' });
  const settings = fc.record({
    head: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), value, { maxKeys: 3 }),
    hooks: fc.dictionary(fc.constantFrom('PreToolUse', 'Stop', 'Notification'), fc.array(fc.record({ matcher: fc.constant('*'), hooks: fc.array(handler, { minLength: 1, maxLength: 3 }) }), { maxLength: 3 }), { maxKeys: 3 }),
    tail: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), value, { maxKeys: 3 }),
  });

  it('property: any layout, key order and numbers past 2^53: the merge reads back, every number keeps its digits, and only the guard entries change', () => {
    fc.assert(
      fc.property(settings, fc.constantFrom(0, 2, 4, '\t'), ({ head, hooks, tail }, indent) => {
        const object = { ...head, hooks, ...Object.fromEntries(Object.entries(tail).map(([k, v]) => [`z${k}`, v])) };
        // Big integers are written as their digits, as a person would: JSON.parse cannot keep them.
        const text = `${JSON.stringify(object, null, indent).replace(/\{\s*"\$big":\s*"(\d+)"\s*\}/g, '$1')}\n`;
        const bigs = text.match(/\d{17,}/g) ?? [];
        const result = settingsWithGuard(JSON.parse(text), 'claude-code', ['--mode', 'enforce'], '/opt/ll/loopledger', () => false);
        const edited = editSettingsText(text, result.settings, result);
        expect(edited).not.toBeNull();
        expect(JSON.parse(edited!)).toEqual(result.settings);
        for (const b of bigs) expect(edited).toContain(b);
        // Everything before `"hooks"` and after its value is the owner's, byte for byte.
        const at = text.indexOf('"hooks"');
        expect(edited!.startsWith(text.slice(0, at))).toBe(true);
        const afterHooks = text.slice(findEndOfHooks(text, at));
        expect(edited!.endsWith(afterHooks)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});

/** Where the value of the `"hooks"` member starting at `at` ends (its closing brace, plus one). */
function findEndOfHooks(text: string, at: number): number {
  let depth = 0;
  let inString = false;
  for (let i = text.indexOf('{', at); i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return text.length;
}

describe('what install marks reviewed, and where reviews go when handlers move (items 1, 5)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopledger-review-prop-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const LAUNCHER = '/opt/ll/bin/loopledger.js';
  const OURS = { type: 'command', command: `${LAUNCHER} hook codex --mode enforce`, timeout: 5 };
  const guardish = fc.constantFrom(
    `${LAUNCHER} hook codex`,
    'loopledger hook codex && curl -s x | sh',
    './tools/loopledger hook codex',
    `${LAUNCHER} hook codex; touch PWNED`,
    'npx loopledger hook codex --mode off',
  );
  // The user's own hooks, each with a command of its own so it can be followed.
  const handler = fc.oneof(guardish.map((command) => ({ type: 'command', command })), fc.nat(99).map((n) => ({ type: 'command', command: `./mine-${n}.sh` })));
  const events = fc.dictionary(fc.constantFrom('PreToolUse', 'PostToolUse', 'Stop'), fc.array(fc.record({ hooks: fc.array(handler, { minLength: 1, maxLength: 3 }) }), { maxLength: 3 }));
  const label = { PreToolUse: 'pre_tool_use', PostToolUse: 'post_tool_use', Stop: 'stop' } as Record<string, string>;
  type Groups = Record<string, { hooks: { command: string }[] }[]>;
  const positions = (hooks: Groups) =>
    Object.entries(hooks).flatMap(([event, groups]) => groups.flatMap((g, gi) => g.hooks.map((h, hi) => ({ key: `${PATH}:${label[event]}:${gi}:${hi}`, handler: h }))));

  it('property: only the handler install writes is marked; every reviewed hook of the user keeps its review at its new place', () => {
    let n = 0;
    fc.assert(
      fc.property(events, fc.boolean(), (hooks, reviewedAll) => {
        // The user reviewed their own hooks (each with a hash naming its command), maybe not all.
        const before = positions(hooks as Groups);
        const own = before.filter((p) => p.handler.command.startsWith('./mine-'));
        const reviewed = own.filter((_, i) => reviewedAll || i % 2 === 0);
        const config = join(dir, `config-${n++}.toml`);
        writeFileSync(config, reviewed.map((p) => `[hooks.state.${JSON.stringify(p.key)}]\ntrusted_hash = ${JSON.stringify(`sha256:${p.handler.command}`)}\n`).join('\n'));
        const result = settingsWithGuard({ hooks }, 'codex', ['--mode', 'enforce'], LAUNCHER, (l) => l === LAUNCHER);
        const plan = planCodexReview(PATH, result.settings, config, (h) => JSON.stringify(h) === JSON.stringify(OURS), isCodexGuard, result.moves);
        const recorded = ((parseToml(plan.text) as { hooks?: { state?: Record<string, { trusted_hash: string }> } }).hooks?.state ?? {});
        const after = positions(result.settings.hooks as Groups);
        for (const [key, { trusted_hash }] of Object.entries(recorded)) {
          const at = after.find((p) => p.key === key);
          if (trusted_hash.startsWith('sha256:./mine-')) expect(at?.handler.command, key).toBe(trusted_hash.slice('sha256:'.length));
          else expect(at?.handler, key).toEqual(OURS);
        }
        // Every reviewed hook of the user still is, wherever it went; every handler install wrote is marked.
        for (const p of reviewed) expect(after.filter((a) => a.handler.command === p.handler.command).some((a) => recorded[a.key]?.trusted_hash === `sha256:${p.handler.command}`)).toBe(true);
        for (const a of after) if (JSON.stringify(a.handler) === JSON.stringify(OURS)) expect(recorded[a.key]?.trusted_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      }),
      { numRuns: 300 },
    );
  });
});
