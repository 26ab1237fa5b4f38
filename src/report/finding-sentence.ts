// One finding in one plain sentence, for the formats that carry a message per finding (SARIF's
// result message, OTLP's gen_ai.evaluation.explanation): what fired, where, and what each acting
// mode would do. Built from the ledger's own fields only, never from transcript text.

import type { LedgerEntry, SessionLedger } from '../ledger/types.js';
import { sanitize } from '../sanitize.js';
import { savedPhrase } from './money.js';
import { enforceWould, fmtConfidence, strikePhrase } from './text.js';

export function findingSentence(s: SessionLedger, e: LedgerEntry): string {
  const bits = [
    `${sanitize(e.detector)}/${sanitize(e.kind)} in session ${sanitize(s.id)} at turn ${e.turn} round ${e.round}`,
    enforceWould(e.intervention.enforce),
    `telemetry ${e.intervention.telemetry}`,
  ];
  if (e.confidence !== null) bits.push(`confidence ${fmtConfidence(e.confidence)}`);
  if (e.strike) bits.push(strikePhrase(e.strike, e.kind));
  if (e.after_stop) bits.push('after a stop (the round would not have happened)');
  const saved = e.intervention.enforce === 'stop' ? savedPhrase(s) : null;
  if (saved !== null) bits.push(`${saved} in this session (list-price estimate)`);
  return bits.join('; ') + '.';
}
