// The thinking detector as the ledger drives it: one instance per turn; each round's completed
// thinking blocks in order, then its usage (reasoning tokens against visible output).

import type { Round } from '../../model/transcript.js';
import type { ResumableRoundDetector, RoundObservation } from '../types.js';
import { markCarried, strongestPerKind } from '../text/finding.js';
import type { ArrayPool } from '../text/pool.js';
import type { ThinkingConfig } from './config.js';
import { ThinkingLoopDetector } from './detector.js';

/** Visible output of a round in characters: its text and the arguments of its tool calls. */
function visibleChars(round: Round): number {
  let n = round.text.length;
  for (const call of round.calls) {
    const a = call.arguments;
    if (typeof a === 'string') n += a.length;
    else if (a !== undefined && a !== null) n += safeLength(a);
  }
  return n;
}

function safeLength(v: unknown): number {
  try {
    return JSON.stringify(v)?.length ?? 0;
  } catch {
    return 0;
  }
}

/** `pool`: shared by the detectors of successive turns, which reuse each other's buffers. */
export function createThinkingRoundDetector(config: ThinkingConfig, pool?: ArrayPool): ResumableRoundDetector {
  const detector = new ThinkingLoopDetector(config, pool);
  return {
    name: 'thinking',
    release: () => detector.release(),
    snapshot: () => detector.snapshot(),
    restore: (state: unknown) => detector.restore(state),
    observe(round: Round): RoundObservation {
      const findings = [];
      let readable = 0;
      detector.beginRound();
      for (const block of round.thinking) {
        if (block.opaque || block.text === null) continue;
        readable++;
        const found = detector.feedBlock(block.text);
        // Past the round's first block a stagnation compares two blocks of one response: a
        // response restating its plan (Gemini CLI's thought summaries), which the ladder reads apart.
        if (readable > 1) for (const f of found) if (f.kind === 'thinking_stagnation') f.evidence = { ...f.evidence, within_round: true };
        findings.push(...found);
      }
      markCarried(findings, detector.openingsCarried());
      const reasoningTokens = round.usage?.reasoningTokens ?? null;
      const opaque = readable === 0;
      // Visible size (which serializes tool arguments) only matters to the opaque-reasoning
      // bypass; observeUsage ignores it otherwise, so it is not computed for readable rounds.
      const judged = opaque && reasoningTokens !== null && reasoningTokens > 0;
      findings.push(
        ...detector.observeUsage({
          reasoningTokens,
          visibleTokens: judged ? Math.ceil(visibleChars(round) / detector.config.charsPerToken) : 0,
          opaque,
        }),
      );
      return { findings: strongestPerKind(findings), measurements: detector.takeMeasurements() };
    },
  };
}
