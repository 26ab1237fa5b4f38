// pi's session JSONL (fixtures/pi/branched.jsonl, modelled on the recording in fixtures/agents/
// pi-0.73.1): a tree of entries of which the branch taken is read (the user went back with /tree
// after three more failing `npm test` calls: that abandoned loop is counted, not read), failures
// read from `isError`, an aborted response as the user's interrupt, pi's own price kept as the
// recorded cost.

import fc from 'fast-check';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { piAdapter } from '../../src/formats/pi.js';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';
import { jsonl, parseWith } from '../helpers/record.js';
import type { SessionLedger } from '../../src/ledger/types.js';

type Session = SessionLedger;

let session: Session;
let ignored: Record<string, number>;
beforeAll(async () => {
  ensureBuilt();
  const r = await runCli(['analyze', join(ROOT, 'fixtures/pi/branched.jsonl'), '--format', 'json']);
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout);
  expect(report.sessions).toHaveLength(1);
  session = report.sessions[0];
  ignored = report.inputs[0].ignored;
});

describe('format pi', () => {
  it('reads the branch taken as pi\'s session, with its working directory: 3 turns, 4 rounds, 2 calls', () => {
    expect([session.format, session.agent, session.project, session.turns, session.rounds, session.tool_calls]).toEqual(['pi', 'pi', '/home/me/app', 3, 4, 2]);
  });

  it('leaves the abandoned branch\'s loop unread (no finding), and counts its six entries as set aside', () => {
    expect(session.entries).toEqual([]);
    expect(ignored).toEqual({ model_change: 1, branch_summary: 1, 'message.bashExecution': 1, 'abandoned branch': 6 });
  });

  it('reads the aborted response as the user\'s interrupt', () => {
    expect(session.interrupts).toMatchObject([{ turn: 2, round: 3 }]);
  });

  it('keeps pi\'s price of the branch taken as the recorded cost, and the cached part of the prompt apart', () => {
    // 0.01 + 0.02 + 0.001 + 0.002: the abandoned branch's three responses (0.01 each) are not on the path.
    expect(session.recorded_cost).toEqual({ usd: 0.033, source: 'message.usage.cost.total' });
    expect(session.usage).toMatchObject({ requests: 4, input_tokens: 3900, cache_read_tokens: 100, output_tokens: 80 });
  });
});

describe('pi\'s tree: the path from the last entry to the root is what is read', () => {
  it('whatever the branching, the rounds are the responses on that path, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 30 }), (parents) => {
        // Entry i (a response with one call, then its result) hangs below a random earlier response's result.
        const records: unknown[] = [{ type: 'session', version: 3, id: 's', timestamp: '2026-11-20T09:00:00.000Z', cwd: '/w' }];
        const parentOf: (number | null)[] = [];
        parents.forEach((p, i) => {
          const parent = i === 0 ? null : p % i;
          parentOf.push(parent);
          const call = { type: 'toolCall', id: `c${i}`, name: 'bash', arguments: { command: `step ${i}` } };
          records.push({ type: 'message', id: `a${i}`, parentId: parent === null ? null : `r${parent}`, message: { role: 'assistant', content: [call] } });
          records.push({ type: 'message', id: `r${i}`, parentId: `a${i}`, message: { role: 'toolResult', toolCallId: `c${i}`, content: [{ type: 'text', text: `out ${i}` }], isError: false } });
        });
        const path: number[] = [];
        for (let i: number | null = parents.length - 1; i !== null; i = parentOf[i]!) path.unshift(i);
        const { sessions, skipped } = parseWith(piAdapter, jsonl(records));
        expect(skipped).toEqual([]);
        const rounds = sessions[0]!.rounds;
        expect(rounds.map((r) => (r.calls[0]!.arguments as { command: string }).command)).toEqual(path.map((i) => `step ${i}`));
        expect(rounds.map((r) => r.answers?.[0]?.content)).toEqual(path.map((i) => `out ${i}`));
      }),
      { numRuns: 200 },
    );
  });

  it('a damaged tree (parents missing, ahead, or in a cycle) is read without error: the rounds are a subset of the responses, each once', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1, max: 40 }), { minLength: 1, maxLength: 40 }), (parents) => {
        // Entry i names any entry as its parent, later ones and itself included, or none (-1).
        const records = parents.map((p, i) => ({
          type: 'message',
          id: `a${i}`,
          parentId: p < 0 ? null : `a${p}`,
          message: { role: 'assistant', content: [{ type: 'toolCall', id: `c${i}`, name: 'bash', arguments: { command: `step ${i}` } }] },
        }));
        const { sessions, skipped } = parseWith(piAdapter, jsonl(records));
        expect(skipped).toEqual([]);
        const read = sessions[0]!.rounds.map((r) => (r.calls[0]!.arguments as { command: string }).command);
        expect(new Set(read).size).toBe(read.length);
        expect(read.length).toBeGreaterThanOrEqual(1);
        expect(read.at(-1)).toBe(`step ${parents.length - 1}`);
      }),
      { numRuns: 200 },
    );
  });
});
