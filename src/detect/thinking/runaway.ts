// reasoning_runaway, seed 002's usage bypass: reasoning that cannot be read (redacted or
// encrypted) is judged by its usage alone, reasoning tokens growing against tiny visible output
// round after round, at a confidence capped so it can only steer.

import type { Finding } from '../types.js';
import { finding, type MeasurementLog } from '../text/finding.js';
import type { ThinkingConfig } from './config.js';
import type { State } from './state.js';

/** Runaway confidence starts here at the minimum streak and grows per extra round, up to the cap. */
const RUNAWAY_BASE_CONFIDENCE = 0.5;
const RUNAWAY_PER_ROUND = 0.05;

export interface UsageObservation {
  /** Reasoning tokens of the round, null when the format does not report them. */
  reasoningTokens: number | null;
  /** Visible output of the round, in tokens (estimated from its text and tool arguments). */
  visibleTokens: number;
  /** The round's reasoning is not readable (redacted, encrypted, or absent while billed). */
  opaque: boolean;
}

export function reasoningRunaway(s: State, c: ThinkingConfig, log: MeasurementLog, u: UsageObservation): Finding[] {
  if (!u.opaque || u.reasoningTokens === null || u.reasoningTokens <= 0) {
    // Readable reasoning is judged by its text; a round without figures breaks the streak.
    s.streak = 0;
    s.streakTokens = 0;
    return [];
  }
  const visible = Math.max(1, u.visibleTokens);
  const ratio = u.reasoningTokens / visible;
  const mRatio = log.record('reasoning_runaway', 'reasoning_to_visible', ratio, c.runawayMinRatio);
  if (ratio < c.runawayMinRatio) {
    s.streak = 0;
    s.streakTokens = 0;
    return [];
  }
  s.streak++;
  s.streakTokens += u.reasoningTokens;
  const mTokens = log.record('reasoning_runaway', 'streak_reasoning_tokens', s.streakTokens, c.runawayMinReasoningTokens);
  const mRounds = log.record('reasoning_runaway', 'streak_rounds', s.streak, c.runawayMinRounds);
  if (s.streak < c.runawayMinRounds || s.streakTokens < c.runawayMinReasoningTokens) return [];
  const confidence = Math.min(c.runawayConfidenceCap, RUNAWAY_BASE_CONFIDENCE + RUNAWAY_PER_ROUND * (s.streak - c.runawayMinRounds));
  return [
    finding(
      'thinking',
      'reasoning_runaway',
      confidence,
      {
        reasoning_tokens: u.reasoningTokens,
        visible_tokens: u.visibleTokens,
        ratio: Math.round(ratio * 10) / 10,
        streak_rounds: s.streak,
        streak_reasoning_tokens: s.streakTokens,
        confidence_cap: c.runawayConfidenceCap,
        opaque: true,
      },
      [mRatio, mTokens, mRounds],
      [],
    ),
  ];
}
