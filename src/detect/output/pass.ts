// An analysis pass: each signal's candidate since the last pass is judged by its rule, in the
// fixed order of RULES (the measurement log and the findings keep it), and the candidates start
// over. The rules share what one pass carries from signal to signal (PassContext).

import type { Finding } from '../types.js';
import type { MeasurementLog } from '../text/finding.js';
import type { OutputConfig } from './config.js';
import { liveSeries } from './counter.js';
import { connectorStalling } from './rules/connectors.js';
import { predictableDrift } from './rules/drift.js';
import { exactBlock, recurringStretch } from './rules/exact-block.js';
import { nearRepetition } from './rules/near-repetition.js';
import { shortPeriod } from './rules/short-period.js';
import type { PassContext } from './rules/context.js';
import { clearCandidates, type State } from './state.js';

type Rule = (p: PassContext) => void;

/**
 * The order matters: a recurring phrase found first explains near repetition, a reported
 * repetition keeps near repetition quiet, and drift says whether it explained any of them.
 */
const RULES: readonly Rule[] = [exactBlock, recurringStretch, shortPeriod, connectorStalling, nearRepetition, predictableDrift];

/** One pass over the candidates; its findings in rule order. */
export function runPass(s: State, c: Readonly<OutputConfig>, log: MeasurementLog): Finding[] {
  s.passes++;
  const pos = s.tok.pos;
  s.nextPassAt = pos + c.strideChars;
  const p: PassContext = { s, c, log, pos, out: [], live: liveSeries(s, c), explained: 0, repetition: false, recurringRun: null };
  for (const rule of RULES) rule(p);
  clearCandidates(s);
  return p.out;
}
