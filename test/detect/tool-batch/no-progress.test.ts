// SPEC 0.3 "No progress": "Tool-batch kind `no_progress`: a window of rounds in which every
// read-only call answered with something already seen in the window and every mutating call
// failed with an error already seen in it (error text normalised), whatever the exact arguments.
// Steers; stops only through the ladder's unheeded steers."

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultToolBatchConfig } from '../../../src/detect/tool-batch/config.js';
import { createNoProgressRoundDetector } from '../../../src/detect/tool-batch/index.js';
import { normaliseError } from '../../../src/detect/tool-batch/no-progress.js';
import type { Finding } from '../../../src/detect/types.js';
import { defaultLadderSettings } from '../../../src/ladder/config.js';
import { EnforceLadder } from '../../../src/ladder/ladder.js';
import type { Round } from '../../../src/model/transcript.js';

let index = 0;
function round(calls: [name: string, args: unknown, answer: string, isError?: boolean][], turn = 1): Round {
  index += 1;
  return {
    turn,
    index,
    line: null,
    text: '',
    thinking: [],
    calls: calls.map(([name, args], i) => ({ id: `c${index}_${i}`, name, arguments: args })),
    answers: calls.map(([, , content, isError]) => ({ content, isError: isError === true })),
  } as unknown as Round;
}

const read = (file: string, answer: string) => round([['Read', { file_path: file }, answer]]);
const failedEdit = (text: string, error: string) => round([['Edit', { file_path: '/a.ts', old_string: text }, error, true]]);
const kinds = (fs: Finding[]) => fs.map((f) => f.kind);

describe('no_progress', () => {
  const config = defaultToolBatchConfig();

  it('the same unchanged file read six times with the same answer is caught, as a steer (issue 28)', () => {
    const d = createNoProgressRoundDetector(config);
    const ladder = new EnforceLadder(defaultLadderSettings());
    const levels = Array.from({ length: 6 }, () => {
      const obs = d.observe(read('/srv/a.ts', 'File unchanged since last read'));
      return obs.findings.length === 0 ? '-' : ladder.decide(obs.findings)[0]!.level;
    });
    // The first read is new; reads 2-5 are four stale rounds (tool_batch.no_progress_stale_rounds).
    expect(levels).toEqual(['-', '-', '-', '-', 'steer', '-']);
  });

  it('one batch answered alike every round steers once, however long: seed 000\'s run (and its read-only allowance) decides its stop', () => {
    const d = createNoProgressRoundDetector(config);
    const ladder = new EnforceLadder(defaultLadderSettings());
    const found = Array.from({ length: 30 }, () => d.observe(read('/srv/a.ts', 'same')).findings);
    expect(found.map((f) => f.length)).toEqual([0, 0, 0, 0, 1, ...Array<number>(25).fill(0)]);
    expect(found[4]![0]!.evidence.same_answers).toBe(true);
    expect(ladder.decide(found[4]!)[0]!.level).toBe('steer');
  });

  it('a read alternating with edits that fail one of two errors, arguments drifting, is caught; it stops only after three unheeded steers', () => {
    const d = createNoProgressRoundDetector(config);
    const ladder = new EnforceLadder(defaultLadderSettings());
    const errors = ['File has been unexpectedly modified. Read it again before attempting to write it.', 'File has not been read yet. Read it first before writing to it.'];
    const levels: string[] = [];
    for (let i = 0; i < 11; i++) {
      for (const r of [read('/srv/docker-compose.yml', 'services: {}'), failedEdit(`port ${5432 + i}`, errors[i % 2]!)]) {
        const obs = d.observe(r);
        if (obs.findings.length > 0) levels.push(ladder.decide(obs.findings)[0]!.level);
      }
    }
    expect(levels.slice(0, 4)).toEqual(['steer', 'steer', 'steer', 'stop']);
  });

  it('an edit that succeeds, or a read that returns something new, ends the stretch', () => {
    const d = createNoProgressRoundDetector(config);
    const out: string[][] = [];
    for (let i = 0; i < 12; i++) {
      out.push(kinds(d.observe(read('/a.ts', 'same')).findings));
      out.push(kinds(d.observe(i % 2 === 1 ? round([['Edit', { file_path: '/a.ts' }, 'The file /a.ts has been updated.']]) : failedEdit('x', 'String to replace not found in file.')).findings));
    }
    expect(out.flat()).toEqual([]);
    const e = createNoProgressRoundDetector(config);
    const seen = Array.from({ length: 20 }, (_, i) => kinds(e.observe(i % 2 ? read('/a.ts', `version ${i}`) : failedEdit('v', 'String to replace not found in file.')).findings));
    expect(seen.flat().filter((k) => k === 'no_progress')).toEqual([]);
    // Issue 54: the same edit failing alike with reads between is "the same failure again, with
    // something in between": repeated_failure reads those rounds, from the third failure on.
    expect(seen.findIndex((k) => k.includes('repeated_failure'))).toBe(4);
  });

  it('a poll whose answer keeps changing is never reported, however long (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 80 }), (answers) => {
        const d = createNoProgressRoundDetector(config);
        for (const a of answers) expect(d.observe(round([['BashOutput', { bash_id: 'b1' }, a]])).findings).toEqual([]);
      }),
    );
  });

  it('a success of a tool that is not a read is a change, whatever it answered', () => {
    const d = createNoProgressRoundDetector(config);
    const found = Array.from({ length: 10 }, () => d.observe(round([['Bash', { command: 'npm run build' }, 'ok']])).findings).flat();
    expect(found).toEqual([]);
    const cat = createNoProgressRoundDetector(config);
    const stale = Array.from({ length: 10 }, () => cat.observe(round([['Bash', { command: 'cat a.txt | tail -1' }, 'ok']])).findings).flat();
    expect(stale.length).toBeGreaterThan(0);
  });

  it('an answer last seen more than no_progress_window rounds ago is not "already seen"', () => {
    const d = createNoProgressRoundDetector({ ...config, noProgressWindow: 3, noProgressStaleRounds: 2 });
    const answers = ['a', 'b', 'c', 'd', 'a', 'b', 'c', 'd', 'a', 'b'];
    expect(answers.flatMap((a) => d.observe(read('/f', a)).findings)).toEqual([]);
  });

  it('a user turn starts the window over; none turns the detector off', () => {
    const d = createNoProgressRoundDetector(config);
    for (let t = 1; t <= 6; t++) expect(d.observe(round([['Read', { file_path: '/f' }, 'same']], t)).findings).toEqual([]);
    const off = createNoProgressRoundDetector({ ...config, noProgressWindow: null });
    expect(Array.from({ length: 10 }, () => off.observe(read('/f', 'same')).findings).flat()).toEqual([]);
  });

  it('its evidence and --explain measurement state the window and the stretch', () => {
    const d = createNoProgressRoundDetector(config);
    let last: Finding | undefined;
    for (let i = 0; i < 5; i++) last = d.observe(read('/f', 'same')).findings[0] ?? last;
    expect(last?.evidence).toMatchObject({ stale_rounds: 4, threshold: 4, window: 12, seen_reads: 4, seen_failures: 0 });
    expect(last?.crossed).toEqual([{ detector: 'tool_batch', kind: 'no_progress', statistic: 'stale_rounds', value: 4, threshold: 4, direction: 'above' }]);
    expect(last?.loop).toBe(false);
  });

  it('restored from its snapshot after every round, it reports exactly what the live one does (the hook keeps state between calls)', () => {
    const step = fc.record({ file: fc.constantFrom('/a', '/b'), answer: fc.constantFrom('x', 'y'), fail: fc.boolean(), turn: fc.constantFrom(0, 0, 0, 1) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const live = createNoProgressRoundDetector(config);
        let saved: unknown = createNoProgressRoundDetector(config).snapshot();
        let turn = 1;
        for (const s of steps) {
          turn += s.turn;
          const r = s.fail ? round([['Edit', { file_path: s.file }, `Error: ${s.answer} at line ${index}`, true]], turn) : round([['Read', { file_path: s.file }, s.answer]], turn);
          const fresh = createNoProgressRoundDetector(config);
          fresh.restore(JSON.parse(JSON.stringify(saved)));
          expect(kinds(fresh.observe(r).findings)).toEqual(kinds(live.observe(r).findings));
          saved = fresh.snapshot();
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('normaliseError', () => {
  it('two tries of one failure compare equal: paths, line numbers, hex ids, timestamps, durations', () => {
    const pairs: [string, string][] = [
      ['Error: ENOENT: no such file or directory, open /tmp/build-1/out.json', 'Error: ENOENT: no such file or directory, open /tmp/build-2/out.json'],
      ['src/a.ts:41:9 error unused', 'src/a.ts:57:3 error unused'],
      ['SyntaxError at line 12', 'SyntaxError at line 40'],
      ['request 9f8e7d6c5b4a failed', 'request 0a1b2c3d4e5f failed'],
      ['2026-05-06T10:00:01Z timeout after 30.2s', '2026-05-06T10:05:44Z timeout after 31.9s'],
      ['pointer 0xdeadbeef freed twice', 'pointer 0x7ffe12ab freed twice'],
    ];
    for (const [a, b] of pairs) expect(normaliseError(a), a).toBe(normaliseError(b));
  });

  it('different failures stay different', () => {
    expect(normaliseError('Error: 5 failing')).not.toBe(normaliseError('Error: 4 failing'));
    expect(normaliseError("old_str `foo` did not appear verbatim")).not.toBe(normaliseError('Parameter `old_str` is required'));
  });
});
