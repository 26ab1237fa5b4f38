// What the judge is shown (seed 002): "only bounded summary evidence (signal kind, confidence,
// statistics, at most three 80-character excerpts)". Pure: the same request gives the same
// messages, byte for byte, and so the same cache key.

import { createHash } from 'node:crypto';
import { kindInfo } from '../detect/kinds.js';
import type { EvidenceValue } from '../detect/types.js';
import { boundedExcerpts, type JudgeRequest } from './judge.js';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

const JUDGE_SYSTEM_PROMPT = [
  'You are the arbitration judge of a loop detector for AI agents. A heuristic detector found ambiguous evidence',
  'that an agent may be stuck in a loop: repeating its output, its reasoning or its actions without making progress.',
  'You see only a summary: the signal, the detector confidence, its statistics and at most three excerpts of at most',
  '80 characters each (possibly normalized: lowercased, whitespace collapsed, cut mid-word).',
  'Decide whether this is a loop, or progress that merely looks alike (the same template applied to different items,',
  'a status line whose figures move, a checklist being worked through).',
  'Reply with one JSON object and nothing else:',
  '{"verdict": "loop" or "progress", "confidence": a number from 0 to 1, "reason": "one short sentence"}',
].join('\n');

/** A statistic's string value is shown only when it is a short identifier, never free text. */
const IDENTIFIER = /^[A-Za-z0-9_.:/-]{0,32}$/;
/** Long number arrays (per-scale similarities) are cut: statistics, not a dump. */
const MAX_ARRAY = 16;

function statistic(v: EvidenceValue): EvidenceValue | undefined {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string') return IDENTIFIER.test(v) ? v : undefined;
  if (Array.isArray(v)) return v.slice(0, MAX_ARRAY).map((n) => (Number.isFinite(n) ? n : 0));
  return undefined;
}

/** The statistics as sent: keys sorted, free text dropped. */
export function judgeStatistics(evidence: JudgeRequest['evidence']): Record<string, EvidenceValue> {
  const out: Record<string, EvidenceValue> = {};
  for (const key of Object.keys(evidence).sort()) {
    const v = statistic(evidence[key]!);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

export function judgeMessages(request: Omit<JudgeRequest, 'model'>): ChatMessage[] {
  // One line per signal, from the kind's own declaration, so a small model knows what the statistics measure.
  const about = kindInfo(request.detector, request.kind)?.judge;
  const confidence = request.confidence === null ? 'none' : String(request.confidence);
  const excerpts = boundedExcerpts(request.excerpts);
  const user = [
    `signal: ${request.kind} (${request.detector} detector)${about ? `: ${about}` : ''}`,
    `detector confidence: ${confidence} (in the ambiguous band: neither clearly a loop nor clearly not)`,
    `statistics: ${JSON.stringify(judgeStatistics(request.evidence))}`,
    excerpts.length > 0
      ? `excerpts (JSON strings, at most 80 characters each): ${JSON.stringify(excerpts)}`
      : 'excerpts: none',
  ].join('\n');
  return [
    { role: 'system', content: JUDGE_SYSTEM_PROMPT },
    { role: 'user', content: user },
  ];
}

/**
 * The cache key: the judge model and exactly what it is shown. A different model or a changed
 * prompt is a different question; the same evidence in another session is the same one.
 */
export function evidenceKey(judgeModel: string, messages: readonly ChatMessage[]): string {
  return createHash('sha256')
    .update(JSON.stringify([judgeModel, messages.map((m) => [m.role, m.content])]))
    .digest('hex');
}
