// Soak tier (npm run test:soak): random sizes, delays and corruptions against the live hook, many runs.
// Issue 27's closing demand for the hook: random payload sizes, arrival delays and state
// corruptions, and for every call "exit 0 always, never longer than the agent's timeout, and the
// guard's verdict unchanged whenever the payload and transcript are intact". The reference is the
// same session run in this process with nothing disturbed; the disturbed run is the built binary.
// A corrupted state is started over from the transcript (intact here), so the verdicts are the
// reference's in every case.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, scratch } from '../cli/helpers.js';
import { fakeAgent, type HookRun, type ToolUse } from '../hook/agents.js';
import { inProcess } from '../hook/inprocess.js';
import { AGENT_TIMEOUT_MS, callHook, type Delivery, type HookCall } from '../hook/process.js';

const tmp = scratch('loopledger-hook-live-prop-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

type Step = 'fail' | 'vary' | 'poll';
const CORRUPTIONS = ['none', 'truncated', 'garbage', 'wrong-shape', 'negative-offset', 'deleted', 'dead-holder-lock'] as const;
type Corruption = (typeof CORRUPTIONS)[number];

interface Disturbance {
  delivery: Delivery;
  /** Bytes of a field no agent sends: the payload's meaning is intact, its size is not. */
  pad: number;
  corruption: Corruption;
}

const disturbance: fc.Arbitrary<Disturbance> = fc.record({
  delivery: fc.record({ delayMs: fc.integer({ min: 0, max: 1_200 }), pieces: fc.integer({ min: 1, max: 4 }), gapMs: fc.integer({ min: 0, max: 150 }) }),
  pad: fc.constantFrom(0, 1_000, 600_000, 3_000_000),
  corruption: fc.constantFrom(...CORRUPTIONS),
});

/** Returns whether a state file was there to corrupt (the lock leaves the state intact). */
function corrupt(stateDir: string, session: string, how: Corruption): boolean {
  const path = join(stateDir, `${session}.state.json`);
  if (how === 'dead-holder-lock') {
    // A holder the agent killed at its timeout: its pid is gone, its lock is fresh.
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(stateDir, `${session}.lock`), String(spawnSync(process.execPath, ['-e', '0']).pid));
    return false;
  }
  if (how === 'none' || !existsSync(path)) return false;
  const text = readFileSync(path, 'utf8');
  let state: Record<string, unknown> = {};
  try {
    state = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Left corrupt by the previous call (a hook that does not start over): corrupted further.
  }
  if (how === 'truncated') writeFileSync(path, text.slice(0, text.length >> 1));
  else if (how === 'garbage') writeFileSync(path, '\u0000\u00ff not json');
  else if (how === 'wrong-shape') writeFileSync(path, JSON.stringify({ ...state, open: { calls: 5 }, closedCalls: {} }));
  else if (how === 'negative-offset') writeFileSync(path, JSON.stringify({ ...state, cursor: state.cursor ? { ...(state.cursor as object), offset: -1 } : { offset: -1 } }));
  else if (how === 'deleted') rmSync(path);
  return true;
}

let run = 0;
async function session(steps: readonly Step[], disturbances: readonly Disturbance[] | null): Promise<{ runs: HookRun[]; calls: HookCall[]; refused: boolean[]; reset: boolean }> {
  run += 1;
  const dir = join(tmp.dir, `run-${run}`);
  mkdirSync(dir);
  const stateDir = join(dir, 'state');
  const sessionId = `prop-0000-4000-8000-${String(run).padStart(12, '0')}`;
  const calls: HookCall[] = [];
  let reset = false;
  const runner = async (args: readonly string[], stdin: string): Promise<HookRun> => {
    if (disturbances === null) return inProcess(args, stdin);
    const d = disturbances[calls.length % disturbances.length]!;
    if (corrupt(stateDir, sessionId, d.corruption)) reset = true;
    const payload = d.pad > 0 ? JSON.stringify({ ...JSON.parse(stdin), padding: 'x'.repeat(d.pad) }) : stdin;
    const call = await callHook(args, payload, { ...d.delivery, killAfterMs: 20_000 });
    calls.push(call);
    return call;
  };
  const fake = fakeAgent('claude-code', { dir, session: sessionId, mode: 'enforce', stateDir, runner });
  fake.user('make the build pass');
  let polls = 0;
  const refused: boolean[] = [];
  for (const [i, step] of steps.entries()) {
    const call: ToolUse =
      step === 'fail'
        ? { name: 'Bash', input: { command: 'npm run build' }, output: "src/index.ts(3,1): error TS2304: Cannot find name 'x'.", error: true }
        : step === 'poll'
          ? { name: 'Bash', input: { command: 'kubectl rollout status deploy/web' }, output: `Waiting for rollout: ${++polls} of 4 updated` }
          : { name: 'Read', input: { file_path: `/repo/src/file-${i}.ts` }, output: `export const v${i} = ${i};` };
    const outcome = await fake.round({ text: `Step ${i}.`, calls: [call] });
    refused.push(outcome.calls[0]!.post === null);
  }
  return { runs: fake.runs, calls, refused, reset };
}

describe('the live hook, disturbed (issue 27)', () => {
  it('exit 0, within the agent’s timeout, and the undisturbed verdicts', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Every session loops (three or four identical failing batches in a row), so every run has
        // a refusal to keep or lose; varied work and polls around it must stay unrefused.
        fc
          .tuple(
            fc.array(fc.constantFrom<Step>('vary', 'poll'), { maxLength: 2 }),
            fc.integer({ min: 3, max: 4 }),
            fc.array(fc.constantFrom<Step>('vary', 'poll', 'fail'), { maxLength: 1 }),
          )
          .map(([before, loops, after]) => [...before, ...Array.from({ length: loops }, (): Step => 'fail'), ...after]),
        fc.array(disturbance, { minLength: 4, maxLength: 10 }),
        // Half the runs keep their state files intact (delays, sizes and dead holders' locks only).
        fc.boolean(),
        async (steps, drawn, corrupting) => {
          const disturbances = corrupting ? drawn : drawn.map((d) => (d.corruption === 'dead-holder-lock' ? d : { ...d, corruption: 'none' as const }));
          const reference = await session(steps, null);
          expect(reference.refused).toContain(true);
          const disturbed = await session(steps, disturbances);
          for (const c of disturbed.calls) {
            expect([c.code, c.signal]).toEqual([0, null]);
            expect(c.wallMs).toBeLessThan(AGENT_TIMEOUT_MS);
          }
          // Payload and transcript intact: the reference's answers, to the byte, whether the
          // state was intact or corrupted and started over from the transcript (the transcript's
          // copy of an answer and the payload's digest alike: payload.ts, answerText).
          expect(disturbed.runs.map((r) => r.stdout), disturbed.reset ? 'after a start-over' : 'state intact').toEqual(reference.runs.map((r) => r.stdout));
        },
      ),
      // Each run is a dozen Node processes: a failure is reported with its seed, not shrunk for minutes.
      { numRuns: 8, endOnFailure: true },
    );
  }, 900_000);
});
