// The labeller's pure parts (issue 33.1): the state machine every key goes through, the order of
// the questions, and the screen. "keys to mark **loop**, **clean**, **skip**, go back, and quit"
// and "It writes the labels file the sweep reads".

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLabels } from '../../src/calibrate/labels.js';
import { buildQueue, labelItem, type InterruptHint, type LabelItem, type TraceRound } from '../../src/label/items.js';
import { KEY_HELP, renderScreen } from '../../src/label/screen.js';
import { actionForKey, currentItem, isFinished, press, startLabelling, type LabelAction, type LabelState } from '../../src/label/state.js';
import type { LedgerEntry, SessionLedger } from '../../src/ledger/types.js';
import { displayWidth } from '../../src/report/text.js';
import type { EnforceLevel } from '../../src/vocabulary.js';

function entry(turn: number, round: number, enforce: EnforceLevel, over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    turn,
    round,
    line: null,
    detector: 'tool_batch',
    kind: 'repeated_batch',
    confidence: null,
    strike: { count: 3, threshold: 2, total: 3, ceiling: null, read_only: false },
    evidence: { tools: 'Bash' },
    intervention: { off: 'none', telemetry: 'noted', enforce },
    after_stop: false,
    ...over,
  } as LedgerEntry;
}

function session(id: string, entries: LedgerEntry[], over: Partial<SessionLedger> = {}): SessionLedger {
  return {
    id,
    path: `runs/${id}.jsonl`,
    format: 'claude-code',
    parent: null,
    model: 'claude-sonnet-4-5',
    turns: 3,
    rounds: 12,
    tool_calls: 12,
    entries,
    outcome: { enforce: { steers: 0, stops: [] } },
    ...over,
  };
}

const trace: TraceRound[] = [
  { turn: 2, round: 4, text: 'Let me run the tests again.', calls: [{ name: 'Bash', args: '{"command":"npm test"}', answer: '1 failing', failed: true }] },
  { turn: 2, round: 5, text: '', calls: [{ name: 'Bash', args: '{"command":"npm test"}', answer: '1 failing', failed: true }] },
];

const itemArb: fc.Arbitrary<LabelItem> = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 12 }),
    entries: fc.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 30 }), fc.constantFrom<EnforceLevel>('noted', 'steer', 'stop')), { maxLength: 4 }),
    interrupted: fc.option(fc.boolean()),
  })
  .map(({ id, entries, interrupted }) => {
    const hint: InterruptHint | null = interrupted === null ? null : { turn: 1, round: 3, after_repeat: interrupted };
    return labelItem(session(id, entries.map(([t, r, l]) => entry(t, r, l))), trace, hint);
  });

const actionArb = fc.constantFrom<LabelAction>('loop', 'clean', 'skip', 'back', 'quit', 'accept');

describe('the state machine', () => {
  it('keys: l loop, c clean, s skip, b and ← back, q quit, enter takes the proposed answer', () => {
    expect(['l', 'c', 's', 'b', '\u001b[D', 'q', '\r'].map(actionForKey)).toEqual(['loop', 'clean', 'skip', 'back', 'back', 'quit', 'accept']);
    expect(actionForKey('x')).toBeNull();
    expect(KEY_HELP).toBe('[l] loop   [c] clean   [s] skip   [b/←] back   [q] quit');
  });

  it('a loop label says where the loop starts: the first finding\'s turn and round', () => {
    const item = labelItem(session('s1', [entry(2, 5, 'noted'), entry(2, 6, 'stop')]), trace, null);
    const step = press(startLabelling([item]), 'loop');
    expect(step.write).toEqual({ key: 's1', value: { label: 'loop', turn: 2, round: 5 } });
    expect(isFinished(step.state)).toBe(true);
    const calm = labelItem(session('s2', []), trace, null);
    expect(press(startLabelling([calm]), 'loop').write).toEqual({ key: 's2', value: 'loop' });
    expect(press(startLabelling([calm]), 'clean').write).toEqual({ key: 's2', value: 'clean' });
  });

  it('enter answers loop after an interrupt that followed a repeat, and nothing otherwise', () => {
    const hinted = labelItem(session('s1', [entry(1, 2, 'noted')]), trace, { turn: 1, round: 3, after_repeat: true });
    expect(hinted.proposed).toBe('loop');
    expect(press(startLabelling([hinted]), 'accept').write).toEqual({ key: 's1', value: { label: 'loop', turn: 1, round: 2 } });
    const plain = labelItem(session('s2', [entry(1, 2, 'noted')]), trace, { turn: 1, round: 9, after_repeat: false });
    expect(plain.proposed).toBeNull();
    const step = press(startLabelling([plain]), 'accept');
    expect(step.write).toBeNull();
    expect(step.state.index).toBe(0);
  });

  it('back revisits the previous session and shows its answer; a new answer replaces it', () => {
    const items = [labelItem(session('a', [entry(1, 2, 'stop')]), trace, null), labelItem(session('b', []), trace, null)];
    let s: LabelState = press(startLabelling(items), 'clean').state;
    s = press(s, 'back').state;
    expect(currentItem(s)?.key).toBe('a');
    expect(s.answers.get('a')).toBe('clean');
    const again = press(s, 'loop');
    expect(again.write?.key).toBe('a');
    expect(again.state.answers.get('a')).toBe('loop');
    expect(press(startLabelling(items), 'back').state.index).toBe(0);
  });

  it('for any keys: the index stays in range, only loop and clean write, every write is a label the sweep reads', () => {
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 6 }), fc.array(actionArb, { maxLength: 30 }), (items, actions) => {
        let state = startLabelling(items);
        const file: Record<string, unknown> = Object.create(null) as Record<string, unknown>; // a session key may be "__proto__"
        for (const action of actions) {
          const before = state;
          const step = press(state, action);
          state = step.state;
          expect(state.index).toBeGreaterThanOrEqual(0);
          expect(state.index).toBeLessThanOrEqual(items.length);
          if (isFinished(before)) expect(step.write).toBeNull();
          if (step.write) {
            expect(step.write.key).toBe(before.items[before.index]!.key);
            const answered = action === 'accept' ? before.items[before.index]!.proposed : action;
            expect(['loop', 'clean']).toContain(answered);
            expect(state.index).toBe(before.index + 1);
            file[step.write.key] = step.write.value;
          } else if (action === 'loop' || action === 'clean') expect(isFinished(before)).toBe(true);
          if (action === 'quit') expect(isFinished(state)).toBe(true);
        }
        const read = parseLabels(file);
        for (const [key, answer] of state.answers) expect(read.get(key)?.label).toBe(answer);
      }),
    );
  });
});

describe('the order of the questions', () => {
  const sessions = [
    session('noted-one', [entry(1, 2, 'noted')]),
    session('stop-two', [entry(1, 2, 'stop'), entry(1, 3, 'stop')]),
    session('stop-one', [entry(1, 4, 'stop')]),
    session('steer', [entry(1, 2, 'steer')]),
    ...Array.from({ length: 20 }, (_, i) => session(`calm-${String(i).padStart(2, '0')}`, [])),
  ];
  const items = sessions.map((s) => labelItem(s, [], null));

  it('sessions with a finding come first, worst first, then the calm sample', () => {
    const q = buildQueue(items, { calm: 5, seed: 1 });
    expect(q.items.slice(0, 4).map((i) => i.key)).toEqual(['stop-two', 'stop-one', 'steer', 'noted-one']);
    expect(q).toMatchObject({ flagged: 4, calmTotal: 20, calmShown: 5 });
    expect(q.items.slice(4).every((i) => i.calm)).toBe(true);
  });

  it('the calm sample is the same for the same seed, whatever order the sessions came in, and never more than there are', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 0, max: 30 }), fc.array(fc.nat(), { minLength: items.length, maxLength: items.length }), (seed, calm, keys) => {
        const shuffled = items.map((it, i) => [keys[i]!, it] as const).sort((a, b) => a[0] - b[0]).map(([, it]) => it);
        const a = buildQueue(items, { calm, seed }).items.map((i) => i.key);
        const b = buildQueue(shuffled, { calm, seed }).items.map((i) => i.key);
        expect(b).toEqual(a);
        expect(a.length).toBe(4 + Math.min(calm, 20));
        expect(new Set(a).size).toBe(a.length);
      }),
    );
  });
});

describe('the screen', () => {
  const ctx = { labelsFile: 'labels.json', queue: { flagged: 1, calmTotal: 3, calmShown: 1 }, seed: 1, alreadyLabelled: 2 };

  it('names the session, its model, its findings in words, the trace and the keys', () => {
    const item = labelItem(session('s1', [entry(2, 5, 'noted'), entry(2, 6, 'stop')]), trace, null);
    const text = renderScreen(startLabelling([item]), { ...ctx, width: 160, height: 40 }).join('\n');
    expect(text).toContain('session s1');
    expect(text).toContain('claude-sonnet-4-5 · claude-code · 3 turns · 12 rounds · enforce: stop');
    expect(text).toContain('t2 r5-6 (2×)  repeated_batch  Bash: same batch and answers 3 in a row (max 2)  → stop');
    expect(text).toContain('t2 r4 says: Let me run the tests again.');
    expect(text).toContain('call Bash {"command":"npm test"}');
    expect(text).toContain('→ error: 1 failing');
    expect(text).toContain('2 already in the file');
    expect(text).toContain(KEY_HELP);
  });

  it('shows an interrupt after a repeat and offers loop on enter', () => {
    const item = labelItem(session('s1', [entry(1, 2, 'noted')]), trace, { turn: 1, round: 3, after_repeat: true });
    const text = renderScreen(startLabelling([item]), { ...ctx, width: 120, height: 40 }).join('\n');
    expect(text).toContain('you interrupted it at t1 r3, right after a repeat: proposed answer loop');
    expect(text).toContain('[enter] loop');
  });

  it('every line fits the width and the screen the height; transcript text cannot reach the terminal raw', () => {
    fc.assert(
      fc.property(fc.integer({ min: 20, max: 240 }), fc.integer({ min: 8, max: 60 }), fc.string({ maxLength: 300 }), (width, height, junk) => {
        const t: TraceRound[] = [{ turn: 1, round: 1, text: junk, calls: [{ name: junk, args: junk, answer: junk, failed: false }] }];
        const item = labelItem(session(`x\u001b]0;pwned\u0007${junk}`, [entry(1, 1, 'stop', { excerpts: [junk] })]), t, null);
        const lines = renderScreen(startLabelling([item]), { ...ctx, width, height });
        for (const l of lines) {
          expect(displayWidth(l)).toBeLessThanOrEqual(width);
          expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        }
        const traceLines = lines.filter((l) => /^ {2}[! ]t\d+ r\d+ /.test(l)).length;
        if (height < 16) expect(traceLines).toBeLessThanOrEqual(Math.max(0, height - 12));
      }),
    );
  });
});
