// What the round's tool work says about its text findings, marked on them for the ladder. Shared
// by the ledger and the live hook, so both read a round the same way.

import type { Finding, Novelty } from './types.js';

/**
 * `progress`: the round repeated its tool batch and the answer moved on (polling a build,
 * waiting for a rollout): text that repeats alongside is narration of progress, not yet a loop.
 * `novel`: the round ran a batch, or got an answer, the turn had not seen: varied, answered work.
 */
export function markToolContext(findings: readonly Finding[], progress: boolean, novel: Novelty): void {
  if (!progress && novel === false) return;
  let varied: boolean | null = null;
  for (const f of findings) {
    if (f.detector === 'tool_batch') continue;
    if (progress) {
      f.progress = true;
      f.evidence = { ...f.evidence, progress: true };
    } else {
      varied ??= typeof novel === 'function' ? novel() : novel;
      if (!varied) return;
      f.variedWork = true;
      // Whether this text may still stop the turn beside that work (ladder.varied_work_steers_only).
      f.evidence = { ...f.evidence, varied_work: true, dominant: f.dominant === true };
    }
  }
}

/** Either detector's novelty, still unasked where it was deferred. */
export function eitherNovel(a: Novelty, b: Novelty | undefined): Novelty {
  if (b === undefined || b === false || a === true) return a;
  if (a === false || b === true) return b;
  return () => a() || b();
}
