// Seed 000 (the tool-batch LoopDetector) through the command line: the cases of
// test/detect/tool-batch, written as transcripts in three input formats, run by the built binary,
// asserted on the JSON ledger. Each test name quotes the seed (or SPEC) sentence it pins.
//
// Spawns are the cost here, so every case of one command line shares one spawn over a directory
// holding that case in every format; the tests then pick their session out of the result.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandRun } from '../../src/ledger/runs.js';
import type { LedgerEntry } from '../../src/ledger/types.js';
import {
  batch,
  canonical,
  claudeCode,
  ensureBuilt,
  openai,
  parseLedger,
  prose,
  repeat,
  runCli,
  scratch,
  user,
  type Call,
  type Event,
  type Ledger,
  type Session,
  type Strike,
} from './helpers.js';

const WRITE: Call[] = [['write_file', { path: 'a.txt', content: 'x' }]];
const BUILD: Call[] = [['bash', { command: 'cargo test' }]];
const SNAP: Call[] = [['browser_snapshot', {}]];
const A: Call[] = [['edit_file', { path: 'a.ts' }]];
const B: Call[] = [['bash', { command: 'npm test' }]];
const C: Call[] = [['read_file', { path: 'b.ts' }]];
const LETTERS: Record<string, Call[]> = { A, B, C };

/** Rounds spelled like 'ABAB': identical answers per letter, or a new answer every round. */
function letters(pattern: string, answers: 'same' | 'changing'): Event[] {
  return [...pattern].map((l, i) => batch(LETTERS[l]!, [answers === 'same' ? `answer ${l}` : `answer ${l} ${i}`]));
}

const FORMATS = {
  canonical: (id: string, events: Event[]) => canonical([{ id, events }]),
  openai: (_id: string, events: Event[]) => openai(events),
  'claude-code': (id: string, events: Event[]) => claudeCode(events, `00000000-0000-4000-8000-${id.padStart(12, '0').slice(-12)}`),
} as const;
type FormatKey = keyof typeof FORMATS;
const FORMAT_KEYS = Object.keys(FORMATS) as FormatKey[];

interface Case {
  events: Event[];
  /** Extra command-line arguments; cases sharing them share a spawn. */
  args?: string[];
}

const tmp = scratch('loopledger-cli-toolbatch-');
const CONFIG_FILE = tmp.write('loopledger.json', JSON.stringify({ tool_batch: { max_strikes: 0 } }));

const cases = new Map<string, Case>();
function def(slug: string, c: Case): string {
  cases.set(slug, c);
  return slug;
}

// --- the cases --------------------------------------------------------------------------------
const THIRD = def('third', { events: repeat(WRITE, 5, 'same') });
const ZERO = def('zero', { events: repeat(WRITE, 2, 'same'), args: ['--set', 'tool_batch.max_strikes=0'] });
const ABAB = def('abab', { events: letters('AB'.repeat(10), 'same') });
const MUTATING = def('mutating', { events: repeat(BUILD, 17, 'changing') });
const RO_CHANGING = def('ro-changing', { events: repeat(SNAP, 40, 'changing') });
const RO_SAME = def('ro-same', { events: repeat(SNAP, 17, 'same') });
const COSTLY = def('costly', { events: repeat(SNAP, 17, 'changing'), args: ['--set', 'tool_batch.costly_tools=snapshot'] });
const NONE = def('none', { events: repeat(SNAP, 4, 'changing'), args: ['--set', 'tool_batch.max_observation_steps=none'] });
const UNKNOWN = def('unknown', { events: repeat(WRITE, 3, 'unknown') });
const USER_BREAK = def('user-break', { events: [...repeat(WRITE, 2, 'same'), user(), ...repeat(WRITE, 2, 'same')] });
const PROSE = def('prose', {
  events: [batch(WRITE), prose('Checking.'), batch(WRITE), prose('Again.'), prose('Still.'), batch(WRITE)],
});
const REORDERED = def('reordered', {
  events: [
    batch([['write_file', { path: 'a', content: 'b' }], ['bash', { command: 'ls', cwd: '/' }]], ['w', 'l']),
    batch([['bash', { cwd: '/', command: 'ls' }], ['write_file', { content: 'b', path: 'a' }]], ['l', 'w']),
    batch([['write_file', { content: 'b', path: 'a' }], ['bash', { cwd: '/', command: 'ls' }]], ['w', 'l']),
  ],
});
const CYCLE2 = def('cycle2', { events: letters('ABABAB', 'same') });
const CYCLE3 = def('cycle3', { events: letters('ABCABCABC', 'same') });
const CYCLE2_LONG = def('cycle2-long', { events: letters('AB'.repeat(5), 'same') });
const CYCLE2_CHANGING = def('cycle2-changing', { events: letters('AB'.repeat(8), 'changing') });
const CYCLE3_CHANGING = def('cycle3-changing', { events: letters('ABC'.repeat(5), 'changing') });
const CEILING_FOLLOWS = def('ceiling-follows', {
  events: repeat(BUILD, 8, 'changing'),
  args: ['--set', 'tool_batch.max_observation_steps=5'],
});
const NEVER_TIGHTER = def('never-tighter', {
  events: repeat(BUILD, 5, 'changing'),
  args: ['--set', 'tool_batch.max_observation_steps=1', '--set', 'tool_batch.max_strikes=3'],
});
const OBSERVATION_LIST = def('observation-list', {
  events: repeat([['web_search', { q: 'loop' }]], 4, 'same'),
  args: ['--set', 'tool_batch.observation_tools=snapshot,web_search'],
});
const MIXED = def('mixed', { events: repeat([['browser_snapshot', {}], ['write_file', { p: 1 }]], 3, 'same') });
const CYCLE_STOP = def('cycle-stop', {
  events: letters('ABABABAB', 'same'),
  args: ['--set', 'tool_batch.cycle_enforce=stop', '--set', 'tool_batch.cycle_enforce_periods=3'],
});
const FROM_CONFIG = def('from-config', { events: repeat(WRITE, 2, 'same'), args: ['--config', CONFIG_FILE] });
// Scope: the same transcripts under --scope turn and --scope replay.
const SCOPE_STOP = def('scope-stop', { events: [...repeat(WRITE, 5, 'same'), user(), ...repeat(WRITE, 2, 'same')] });
const SCOPE_CEILING = def('scope-ceiling', {
  events: [...repeat(BUILD, 15, 'changing'), user(), ...repeat(BUILD, 15, 'changing')],
});
const SCOPE_BREAK = def('scope-break', { events: [...repeat(WRITE, 2, 'same'), user(), ...repeat(WRITE, 2, 'same')] });
const SCOPE_CASES = [SCOPE_STOP, SCOPE_CEILING, SCOPE_BREAK];
const SCOPES = ['turn', 'replay'] as const;

// --- one spawn per command line ---------------------------------------------------------------
const ledgers = new Map<string, Ledger>();

function groupKey(args: readonly string[]): string {
  return JSON.stringify(args);
}

beforeAll(async () => {
  ensureBuilt();
  const groups = new Map<string, { args: string[]; slugs: string[] }>();
  const add = (slug: string, args: string[]) => {
    const k = groupKey(args);
    if (!groups.has(k)) groups.set(k, { args, slugs: [] });
    groups.get(k)!.slugs.push(slug);
  };
  for (const [slug, c] of cases) {
    if (SCOPE_CASES.includes(slug)) for (const scope of SCOPES) add(slug, ['--scope', scope]);
    else add(slug, c.args ?? []);
  }
  let g = 0;
  const runs = [...groups.values()].map(async ({ args, slugs }) => {
    const dir = `g${++g}`;
    slugs.forEach((slug, i) => {
      for (const f of FORMAT_KEYS) tmp.write(`${dir}/${f}/${slug}.jsonl`, FORMATS[f](String(i + 1), cases.get(slug)!.events));
    });
    const r = await runCli([`${tmp.dir}/${dir}`, '--json', '--jobs', '1', ...args]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    ledgers.set(groupKey(args), parseLedger(r));
  });
  await Promise.all(runs);
});

afterAll(() => tmp.cleanup());

function sessionOf(slug: string, format: FormatKey, args: string[] = cases.get(slug)!.args ?? []): Session {
  const ledger = ledgers.get(groupKey(args));
  if (!ledger) throw new Error(`no run for ${groupKey(args)}`);
  const s = ledger.sessions.find((x) => x.path.endsWith(`/${format}/${slug}.jsonl`));
  if (!s) throw new Error(`no session for ${format}/${slug}`);
  // Each generator must land in its own parser, or the case would prove nothing about it.
  expect(s.format).toBe(format);
  return s;
}

// The run's entries (seed 000): tool_cycle and no_progress (issue 28, which steers a quiet repeat) are other signals.
/** Every round's entry, a folded run expanded back (docs/json.md, "Runs"): the seed speaks of rounds. */
const toolBatch = (s: Session) => s.entries.flatMap((e) => [...expandRun(e as unknown as LedgerEntry)] as unknown as Session['entries']).filter((e) => e.detector === 'tool_batch' && e.kind !== 'tool_cycle' && e.kind !== 'no_progress');
const cyclesOf = (s: Session) => s.entries.filter((e) => e.kind === 'tool_cycle');
const stopRounds = (s: Session) => s.entries.filter((e) => e.intervention.enforce === 'stop').map((e) => e.round);

/** The one stop of the session: where, which kind, which strike, and the turn ending with it. */
function expectStop(s: Session, at: { turn?: number; round: number }, kind: string, strike: Strike): void {
  const turn = at.turn ?? 1;
  expect(stopRounds(s)).toEqual([at.round]);
  expect(s.outcome.enforce.stops).toEqual([{ turn, round: at.round }]);
  const e = s.entries.find((x) => x.round === at.round && x.detector === 'tool_batch')!;
  expect(e).toMatchObject({
    turn,
    detector: 'tool_batch',
    kind,
    confidence: null,
    intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' },
    after_stop: false,
  });
  expect(e.strike).toEqual(strike);
  // "A stop ends the turn": later rounds of that turn would not have happened.
  for (const x of s.entries.filter((y) => y.turn === turn)) {
    expect(x.after_stop, `round ${x.round}`).toBe(x.round > at.round);
    if (x.round > at.round) expect(x.intervention.enforce).toBe('none');
  }
  for (const x of s.entries.filter((y) => y.turn !== turn)) expect(x.after_stop).toBe(false);
}

function expectNoStop(s: Session): void {
  expect(stopRounds(s)).toEqual([]);
  expect(s.outcome.enforce.stops).toEqual([]);
  expect(s.entries.every((e) => !e.after_stop)).toBe(true);
}

describe.each(FORMAT_KEYS)('seed 000 through the CLI, %s transcripts', (format) => {
  describe('the count', () => {
    it('"max_strikes = 2 allows two identical batches and errors on the third"', () => {
      const s = sessionOf(THIRD, format);
      expect(s).toMatchObject({ rounds: 5, turns: 1, tool_calls: 5 });
      expectStop(s, { round: 3 }, 'repeated_batch', { count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false });
      // Every strike is an entry, so a reader sees the run build up: the second is noted.
      const second = toolBatch(s).find((e) => e.round === 2)!;
      expect(second.intervention).toEqual({ off: 'none', telemetry: 'noted', enforce: 'noted' });
      expect(second.strike).toMatchObject({ count: 2, threshold: 2 });
      expect(toolBatch(s).map((e) => e.round)).toEqual([2, 3, 4, 5]);
    });

    it('"and max_strikes = 0 rejects the very first occurrence" (--set tool_batch.max_strikes=0)', () => {
      const s = sessionOf(ZERO, format);
      expectStop(s, { round: 1 }, 'repeated_batch', { count: 1, threshold: 0, total: 1, ceiling: 15, read_only: false });
    });
  });

  describe('run-length counting', () => {
    it('"a batch with a different signature discards it": A,B,A,B with identical answers never stops', () => {
      const s = sessionOf(ABAB, format);
      expectNoStop(s);
      expect(toolBatch(s)).toEqual([]);
    });

    it('"A user turn ends a run explicitly": a user turn between repeats prevents a stop', () => {
      const s = sessionOf(USER_BREAK, format);
      expect(s.turns).toBe(2);
      expectNoStop(s);
      expect(toolBatch(s).map((e) => [e.turn, e.round, e.strike?.count])).toEqual([
        [1, 2, 2],
        [2, 4, 2],
      ]);
    });

    it('"a prose answer and a role: "tool" result are transparent"', () => {
      expectStop(sessionOf(PROSE, format), { round: 6 }, 'repeated_batch', {
        count: 3,
        threshold: 2,
        total: 3,
        ceiling: 15,
        read_only: false,
      });
    });
  });

  describe('result-aware strikes and the ceiling', () => {
    it('"Everything else keeps a ceiling": a mutating batch with changing answers stops at occurrence 16, not 15', () => {
      const s = sessionOf(MUTATING, format);
      // Changing answers are no strikes, so nothing at all is recorded before the ceiling.
      expect(toolBatch(s).filter((e) => e.round <= 15)).toEqual([]);
      expectStop(s, { round: 16 }, 'ceiling', { count: 2, threshold: 2, total: 16, ceiling: 15, read_only: false });
    });

    it('"Read-only batches are exempt anyway": a read-only batch (snapshot) with changing answers never stops', () => {
      const s = sessionOf(RO_CHANGING, format);
      expectNoStop(s);
      expect(toolBatch(s)).toEqual([]);
    });

    it('"Sixteen identical answers in a row to a read-only batch is still a loop by this detector\'s definition"', () => {
      const s = sessionOf(RO_SAME, format);
      expectStop(s, { round: 16 }, 'repeated_batch', { count: 16, threshold: 15, total: 16, ceiling: null, read_only: true });
      const before = toolBatch(s).filter((e) => e.round < 16);
      expect(before.map((e) => e.round)).toEqual(Array.from({ length: 14 }, (_, i) => i + 2));
      expect(before.every((e) => e.intervention.enforce === 'noted' && e.strike!.read_only)).toBe(true);
    });

    it('"except where it changes nothing only here, which is_costly_batch withholds the waiver from" (--set tool_batch.costly_tools=snapshot): stops at 16', () => {
      const s = sessionOf(COSTLY, format);
      expectStop(s, { round: 16 }, 'ceiling', { count: 2, threshold: 15, total: 16, ceiling: 15, read_only: true });
      expect(toolBatch(s).find((e) => e.round === 16)!.evidence).toMatchObject({ costly: true, read_only: true });
    });

    it('"With max_observation_steps: None the tier is off" (--set tool_batch.max_observation_steps=none): the third snapshot stops even with changing answers', () => {
      const s = sessionOf(NONE, format);
      expectStop(s, { round: 3 }, 'ceiling', { count: 2, threshold: 2, total: 3, ceiling: 2, read_only: true });
    });

    it('"Unknown answers never rescue a run": three unanswered identical batches stop at the third', () => {
      const s = sessionOf(UNKNOWN, format);
      expectStop(s, { round: 3 }, 'repeated_batch', { count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false });
      expect(toolBatch(s).find((e) => e.round === 3)!.evidence).toMatchObject({ answers_known: false });
    });
  });

  describe('the settings behind the tiers', () => {
    it('"Reusing that number rather than inventing one is deliberate" (--set tool_batch.max_observation_steps=5: the ceiling follows, a mutating batch with changing answers stops at 6)', () => {
      expectStop(sessionOf(CEILING_FOLLOWS, format), { round: 6 }, 'ceiling', {
        count: 2,
        threshold: 2,
        total: 6,
        ceiling: 5,
        read_only: false,
      });
    });

    it('"The ceiling is never tighter than max_strikes" (max_observation_steps=1, max_strikes=3: changing answers stop at 4, not 2)', () => {
      expectStop(sessionOf(NEVER_TIGHTER, format), { round: 4 }, 'ceiling', {
        count: 2,
        threshold: 3,
        total: 4,
        ceiling: 3,
        read_only: false,
      });
    });

    it('"if every call matches an observation pattern … max_observation_steps is used" (--set tool_batch.observation_tools=snapshot,web_search)', () => {
      const s = sessionOf(OBSERVATION_LIST, format);
      expectNoStop(s);
      expect(toolBatch(s).map((e) => e.strike)).toEqual(
        [2, 3, 4].map((n) => ({ count: n, threshold: 15, total: n, ceiling: null, read_only: true })),
      );
    });

    it('"Otherwise max_strikes": one mutating call beside a snapshot makes the batch mutating', () => {
      expectStop(sessionOf(MIXED, format), { round: 3 }, 'repeated_batch', {
        count: 3,
        threshold: 2,
        total: 3,
        ceiling: 15,
        read_only: false,
      });
    });

    it('--config FILE sets tool_batch keys like --set: {"tool_batch":{"max_strikes":0}} stops the first batch', () => {
      const s = sessionOf(FROM_CONFIG, format);
      expectStop(s, { round: 1 }, 'repeated_batch', { count: 1, threshold: 0, total: 1, ceiling: 15, read_only: false });
      expect(ledgers.get(groupKey(['--config', CONFIG_FILE]))!.config['tool_batch.max_strikes']).toBe(0);
    });

    it('issue 3: tool_cycle\'s "enforce level is a setting" (--set tool_batch.cycle_enforce=stop --set tool_batch.cycle_enforce_periods=3 ends the turn at the cycle)', () => {
      const s = sessionOf(CYCLE_STOP, format);
      expect(stopRounds(s)).toEqual([6]);
      expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 6 }]);
      expect(cyclesOf(s).map((e) => [e.round, e.intervention.enforce, e.after_stop])).toEqual([
        [6, 'stop', false],
        [8, 'none', true],
      ]);
    });
  });

  it('SPEC: "batch signature independent of call order and argument key order": reordered calls and keys are one signature', () => {
    const s = sessionOf(REORDERED, format);
    expectStop(s, { round: 3 }, 'repeated_batch', { count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false });
    const sigs = new Set(toolBatch(s).map((e) => e.evidence['signature']));
    expect(sigs.size).toBe(1);
  });

  describe('"What it still does not catch: A cycle of tool batches, at any period of two or more" (tool_cycle)', () => {
    it('period 2 with identical answers, three full periods: noted, never stopped (tool_batch.cycle_enforce_periods 4)', () => {
      const s = sessionOf(CYCLE2, format);
      expectNoStop(s);
      const c = cyclesOf(s);
      expect(c.map((e) => [e.round, e.evidence['period']])).toEqual([[6, 2]]);
      expect(c[0]).toMatchObject({
        detector: 'tool_batch',
        strike: null,
        intervention: { off: 'none', telemetry: 'noted', enforce: 'noted' },
        after_stop: false,
      });
    });

    it('calibrated (docs/calibrating.md): from the fourth full period a cycle of identical answers is steered (tool_batch.cycle_enforce steer), never stopped', () => {
      const s = sessionOf(CYCLE2_LONG, format);
      expectNoStop(s);
      expect(cyclesOf(s).map((e) => [e.round, e.evidence['periods'], e.intervention.enforce, e.reminder])).toEqual([
        [6, 3, 'noted', undefined],
        [8, 4, 'steer', 'ToolLoopRecovery'],
        [10, 5, 'steer', 'ToolLoopRecovery'],
      ]);
      expect(s.outcome.enforce).toMatchObject({ steers: 2, stops: [] });
    });

    it('period 3 with identical answers is noted', () => {
      const s = sessionOf(CYCLE3, format);
      expectNoStop(s);
      expect(cyclesOf(s).map((e) => [e.round, e.evidence['period'], e.intervention.enforce])).toEqual([[9, 3, 'noted']]);
    });

    it('periods 2 and 3 with changing answers are silent', () => {
      for (const slug of [CYCLE2_CHANGING, CYCLE3_CHANGING]) {
        const s = sessionOf(slug, format);
        expect(s.entries).toEqual([]);
        expect(s.outcome.enforce).toEqual({ steers: 0, stops: [], saved: { rounds: 0, tokens: 0, usd: 0 }, cut: { rounds: 0, tokens: 0, usd: 0 } });
      }
    });
  });

  describe('--scope turn and --scope replay', () => {
    const both = (slug: string) => SCOPES.map((scope) => sessionOf(slug, format, ['--scope', scope]));

    it('the effective scope is reported in the JSON config', () => {
      for (const scope of SCOPES) expect(ledgers.get(groupKey(['--scope', scope]))!.config['scope']).toBe(scope);
    });

    it('a stop ends its turn only: after_stop marks the rest of turn 1, turn 2 starts fresh (both scopes)', () => {
      for (const s of both(SCOPE_STOP)) {
        expectStop(s, { turn: 1, round: 3 }, 'repeated_batch', { count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false });
        expect(toolBatch(s).map((e) => [e.turn, e.round, e.after_stop, e.intervention.enforce])).toEqual([
          [1, 2, false, 'noted'],
          [1, 3, false, 'stop'],
          [1, 4, true, 'none'],
          [1, 5, true, 'none'],
          [2, 7, false, 'noted'],
        ]);
      }
    });

    it('break_run "Resets the read-only allowance with the strike count, as a fresh Guards does": 15 + 15 changing answers across a user turn never reach the ceiling (both scopes)', () => {
      for (const s of both(SCOPE_CEILING)) {
        expect(s.turns).toBe(2);
        expectNoStop(s);
        expect(s.entries).toEqual([]);
      }
    });

    it('"only the proxy, which walks one detector across a whole replayed conversation, has to be told": replay breaks the run at user turns too', () => {
      const [turn, replay] = both(SCOPE_BREAK);
      expectNoStop(replay!);
      // break_run is exactly a fresh detector, so the two scopes agree entry for entry.
      expect(replay!.entries).toEqual(turn!.entries);
      const [t2, r2] = both(SCOPE_STOP);
      expect(r2!.entries).toEqual(t2!.entries);
    });
  });
});
