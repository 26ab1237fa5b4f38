// How the judge's part reads in the human formats (table, markdown).

import type { JudgeConsultation, LedgerEntry, LedgerSummary } from '../ledger/types.js';
import { approxUsd } from './money.js';
import { sanitize } from '../sanitize.js';

/** The judge's verdict decided this entry's enforce level (a confident loop or progress). */
export function judgeDecided(e: LedgerEntry): boolean {
  return e.judge !== undefined && e.judge.verdict !== 'indeterminate';
}

/** The enforce level as shown: `noted (judge)` where a judge's verdict set it. */
export function enforceText(e: LedgerEntry): string {
  return judgeDecided(e) ? `${e.intervention.enforce} (judge)` : e.intervention.enforce;
}

const WHY: Record<string, string> = {
  no_judge: 'no judge configured',
  over_budget: 'over judge.max_verdicts_per_turn',
  self_arbitration: 'the judge model is the monitored model',
  no_api_key: 'the API key variable is not set',
  judge_unavailable: 'the endpoint had stopped answering; not asked',
  timeout: 'timed out',
  network: 'endpoint unreachable',
  unparsable: 'reply unreadable',
  no_confidence: 'reply gave no confidence',
  below_gate: 'confidence under judge.verdict_confidence_min',
  pending: 'not asked yet',
  not_asked: 'not asked',
};

/** One line for --explain: what the judge said, or why it did not decide. */
export function fmtJudge(j: JudgeConsultation): string {
  const conf = j.confidence === null ? '' : ` ${j.confidence.toFixed(2)}`;
  if (j.verdict !== 'indeterminate') {
    const from = j.carried_from !== undefined ? `, carried from round ${j.carried_from}` : '';
    return `judge: ${j.verdict}${conf}${from}`;
  }
  const why = j.unusable === undefined ? '' : (WHY[j.unusable] ?? sanitize(j.unusable.replace('_', ' ')));
  return `judge: indeterminate${conf}${why ? ` (${why})` : ''}; the heuristic verdict stands`;
}

/** `judge: 3 requests, 1,204 input / 96 output tokens ≈ $0.0003, 2 from cache`, or null when no judge took part. */
export function judgeUsageLine(summary: LedgerSummary): string | null {
  const j = summary.judge;
  if (!j || j.requests + j.cached === 0) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  const parts = [`${n(j.requests)} request${j.requests === 1 ? '' : 's'}`];
  if (j.requests > 0) {
    const usd = typeof j.usd === 'number' ? ` ${approxUsd(j.usd)}` : j.usd === null ? ` (${sanitize(j.usd_reason ?? 'no price')})` : '';
    parts.push(`${n(j.input_tokens)} input / ${n(j.output_tokens)} output tokens${usd}`);
  }
  if (j.failed > 0) parts.push(`${n(j.failed)} without a usable answer`);
  if (j.cached > 0) parts.push(`${n(j.cached)} verdict${j.cached === 1 ? '' : 's'} from the cache`);
  return `judge: ${parts.join(', ')}`;
}
