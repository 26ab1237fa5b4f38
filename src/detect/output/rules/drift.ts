// predictable_drift: a counter series ("step 3", "step 4", …), reported at its own low,
// capped confidence; it says whether it explained a repetition this pass.

import { finding } from '../../text/finding.js';
import { COUNTER_LETTER } from '../../text/tokens.js';
import type { PassContext } from './context.js';

export function predictableDrift(p: PassContext): void {
  const { s, c, log } = p;
  if (s.drMax > 0) log.note('predictable_drift', 'terms', s.drMax, c.predictableDriftMinTerms);
  const drift = s.drBest;
  if (!drift) return;
  const m = log.record('predictable_drift', 'terms', drift.terms, c.predictableDriftMinTerms);
  p.out.push(
    finding(
      'output',
      'predictable_drift',
      c.predictableDriftConfidence,
      {
        series: drift.kind === COUNTER_LETTER ? 'letter' : 'numeric',
        terms: drift.terms,
        first_value: drift.firstValue,
        span_chars: drift.lastChar - drift.firstChar,
        offset: drift.firstChar,
        explains_repetition: p.explained > 0,
      },
      [m],
      [],
    ),
  );
}
