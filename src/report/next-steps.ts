// The table's last lines (issue 56 item 2): one or two next steps that fit what was found, never
// more. Loops Enforce would steer or stop: guard the agent live, and confirm the findings by hand
// before trusting them. Findings that are only noted: confirm them, and gate CI on the level
// that matters. Nothing found: nothing to do.

import type { LedgerReport } from '../ledger/types.js';
import { strongerLevel, type EnforceLevel } from '../vocabulary.js';

/** Formats whose agent takes the live guard (`loopledger hook install <agent>`), by format name. */
const GUARDED: Readonly<Record<string, string>> = { 'claude-code': 'claude-code', codex: 'codex', gemini: 'gemini' };

const LABEL = 'say which findings are loops (labels for sweep): loopledger label, with the same paths';

/** At most two lines, each a command with what it is for. */
export function nextSteps(report: Pick<LedgerReport, 'sessions'>): string[] {
  let worst: EnforceLevel = 'none';
  let agent: string | null = null;
  for (const s of report.sessions) {
    let level: EnforceLevel = 'none';
    for (const e of s.entries) level = strongerLevel(level, e.intervention.enforce);
    if ((level === 'stop' || level === 'steer') && agent === null) agent = GUARDED[s.format] ?? null;
    worst = strongerLevel(worst, level);
  }
  if (worst === 'none') return [];
  if (worst === 'noted') return [LABEL, 'fail a CI job on what matters: add --fail-on steer (exit 1 when Enforce would steer)'];
  const guard = agent !== null ? `stop such loops live: loopledger hook install ${agent} --write` : `gate CI on it: add --fail-on ${worst} (exit 1 when Enforce would ${worst})`;
  return [guard, LABEL];
}
