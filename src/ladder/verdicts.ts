// The judge port a ledger build uses when a judge is configured: it answers from verdicts already
// in hand (the cache file, or what this run's earlier pass asked) and writes down the evidence it
// could not answer, which src/judge/run.ts then puts to the judge before it looks at the file again.
// Pure and synchronous, so the ledger stays a deterministic streaming sink.

import type { JudgeAnswer, JudgePort, JudgeRequest, JudgeUnusable, JudgeVerdict } from './judge.js';
import { type ChatMessage, evidenceKey, judgeMessages } from './judge-prompt.js';
import { sameProviderModel } from './model-identity.js';

/** A verdict in hand, as the judge gave it (before the confidence gate, which the ladder applies). */
export interface KnownVerdict {
  verdict: JudgeVerdict;
  confidence: number | null;
  /** Why it is Indeterminate: the request failed (timeout, HTTP error) or the reply was unusable. */
  unusable?: JudgeUnusable;
  /** False when no request was made for it (the endpoint had been given up on). Default true. */
  consulted?: boolean;
}

/** Plain data (it crosses to worker threads): which judge, and whether it can be asked at all. */
export interface JudgePlan {
  /** The judge model. */
  model: string;
  /** Set when no new request can be made this run (the API key's variable is unset, the endpoint given up on). */
  blocked?: JudgeUnusable;
  /** Verdicts by evidence key. */
  verdicts: ReadonlyMap<string, KnownVerdict>;
}

/** Evidence the port could not answer: the key and exactly the messages to send. */
export interface PendingArbitration {
  key: string;
  /** `detector/kind`, for diagnostics. */
  signal: string;
  messages: ChatMessage[];
}

export class VerdictBook implements JudgePort {
  private readonly asked = new Map<string, PendingArbitration>();
  private readonly known = new Set<string>();

  constructor(private readonly plan: JudgePlan) {}

  arbitrate(request: JudgeRequest): JudgeAnswer {
    const p = this.plan;
    if (sameProviderModel(p.model, request.model)) {
      return { verdict: 'indeterminate', confidence: null, consulted: false, unusable: 'self_arbitration' };
    }
    const { model: _monitored, ...evidence } = request;
    const messages = judgeMessages(evidence);
    const key = evidenceKey(p.model, messages);
    const known = p.verdicts.get(key);
    if (known) {
      this.known.add(key);
      const answer: JudgeAnswer = { verdict: known.verdict, confidence: known.confidence, consulted: known.consulted ?? true };
      if (known.unusable) answer.unusable = known.unusable;
      return answer;
    }
    // Verdicts in hand still count when nothing can be asked (a CI job without the key, with the
    // committed cache); only new evidence goes unanswered.
    if (p.blocked) return { verdict: 'indeterminate', confidence: null, consulted: false, unusable: p.blocked };
    // Not known yet: Indeterminate for this pass; the run asks, then looks again (src/judge/run.ts).
    // Evidence met after a pending arbitration of its turn may not be met at all once that one is
    // answered (a cleared steer changes what follows): it waits for the second look, so no request is
    // made that a run with every answer in hand would not make.
    if (!request.speculative && !this.asked.has(key)) {
      this.asked.set(key, { key, signal: `${request.detector}/${request.kind}`, messages });
    }
    return { verdict: 'indeterminate', confidence: null, consulted: false, unusable: 'pending' };
  }

  /** The keys this build answered from verdicts in hand. */
  answered(): string[] {
    return [...this.known];
  }

  /** What this build could not answer, in the order it was met. */
  pending(): PendingArbitration[] {
    return [...this.asked.values()];
  }
}
