// One round's batch signature and answer digest, computed once even when two detectors read the
// same round: tool results can be megabytes, and hashing them twice would double the cost.

import type { Round } from '../../model/transcript.js';
import { answersDigest, batchSignature, type BatchSignature } from './signature.js';

export interface RoundDigest {
  batch: BatchSignature;
  /** null when the batch's answers are unknown. */
  answers: string | null;
}

export class RoundDigester {
  private lastRound: Round | null = null;
  private last: RoundDigest | null = null;

  /** Digest of a non-empty batch; the last round is remembered by identity. */
  digest(round: Round): RoundDigest {
    if (this.lastRound === round && this.last !== null) return this.last;
    const batch = batchSignature(round.calls);
    const digest: RoundDigest = { batch, answers: answersDigest(batch, round.answers) };
    this.lastRound = round;
    this.last = digest;
    return digest;
  }
}
