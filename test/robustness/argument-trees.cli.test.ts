// Issue 53 item 11: "Large argument trees are kept 12 rounds". A tool call's arguments parse into a
// tree of ~28 bytes of heap per character of `[[[…]]]`: a round's tree may be held while it is the
// round being read, not after. Eight rounds of 1.2 MB arguments (a 34 MB tree each) run in a 96 MB
// heap, which held the first rounds' trees for format detection (all of them, in a short file) and
// the cut's lookback (twelve rounds) before. The verdicts are those of the same transcript with
// tiny arguments: an argument's size changes the memory, never the ledger.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneHeavyCaseAtATime } from '../helpers/one-heavy.js';
import { ensureBuilt, runCapped, scratch } from './helpers.js';

const tmp = scratch('loopledger-argument-trees-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const ROUNDS = 8;
const HEAP_MB = 96;

type Shape = 'deep' | 'wide';

/** `units` levels of nesting, or `units` one-element arrays side by side; `r` varies the value. */
function argumentTree(shape: Shape, units: number, r: number): string {
  if (shape === 'deep') return `${'['.repeat(units)}${r}${']'.repeat(units)}`;
  return `[${Array.from({ length: units }, (_, i) => `[${(i + r) % 10}]`).join(',')}]`;
}

/** A canonical transcript of one turn; `same`: every round the same call with the same answer (a loop). */
function transcript(shape: Shape, units: number, same: boolean): string {
  const lines = [
    JSON.stringify({ type: 'session', schema: 'loopledger-canonical/1', id: 'trees', parent: null, model: 'example-model-1' }),
    JSON.stringify({ type: 'user', text: 'store the data' }),
  ];
  for (let r = 0; r < ROUNDS; r++) {
    const args = `{"data":${argumentTree(shape, units, same ? 0 : r)}}`;
    lines.push(`{"type":"assistant","text":"","tool_calls":[{"id":"c${r}","name":"put","arguments":${args}}],"usage":{"input":900,"output":30,"reasoning":0}}`);
    lines.push(JSON.stringify({ type: 'tool_result', id: `c${r}`, content: same ? 'stored' : `stored ${r}`, is_error: false }));
  }
  return `${lines.join('\n')}\n`;
}

interface Ledger {
  inputs: { error?: string }[];
  sessions: { rounds: number; tool_calls: number; entries: { detector: string; kind: string; round: number }[]; outcome: unknown }[];
}

async function ledgerOf(shape: Shape, units: number, same: boolean, heapMb: number): Promise<Ledger> {
  const file = join(tmp.dir, `${shape}-${units}-${same ? 'same' : 'varied'}.jsonl`);
  writeFileSync(file, transcript(shape, units, same));
  const r = await runCapped([file, '--format', 'json', '--jobs', '1'], heapMb);
  expect(r.stderr).not.toMatch(/heap out of memory/);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Ledger;
}

const verdicts = (l: Ledger) => l.sessions.map((s) => ({ entries: s.entries.map((e) => [e.detector, e.kind, e.round]), outcome: s.outcome }));

describe('argument trees live no longer than their round', () => {
  const cases: { shape: Shape; units: number; same: boolean }[] = [
    // The same call eight times: the loop is found and Enforce stops it, so the cut's lookback and
    // its recovery check run over the large calls too.
    { shape: 'deep', units: 600_000, same: true },
    { shape: 'wide', units: 300_000, same: false },
  ];
  for (const { shape, units, same } of cases) {
    it(`${ROUNDS} rounds of 1.2 MB ${shape} arrays run in a ${HEAP_MB} MB heap, with the verdicts of tiny ones`, async () => {
      const big = await oneHeavyCaseAtATime(() => ledgerOf(shape, units, same, HEAP_MB));
      expect(big.inputs.map((i) => i.error)).toEqual([undefined]);
      expect(big.sessions.map((s) => [s.rounds, s.tool_calls])).toEqual([[ROUNDS, ROUNDS]]);
      const tiny = await ledgerOf(shape, 3, same, 256);
      expect(verdicts(big)).toEqual(verdicts(tiny));
      if (same) expect(big.sessions[0]!.entries.length).toBeGreaterThan(0);
    }, 300_000);
  }
});
