// The CLI's exit-code rule, kept apart from the renderers so they can share it without a cycle.

import type { SessionLedger } from '../ledger/types.js';
import { LEVEL_RANK, type EnforceLevel } from '../vocabulary.js';

/** A session reaches a level when any entry's enforce intervention is at or above it
 *  (none < noted < steer < stop); `none` is never reached, so it never fails a run. */
export function reachedFailOn(session: SessionLedger, failOn: EnforceLevel): boolean {
  if (failOn === 'none') return false;
  const bar = LEVEL_RANK[failOn];
  return session.entries.some((e) => LEVEL_RANK[e.intervention.enforce] >= bar);
}
