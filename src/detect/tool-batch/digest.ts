// One round's batch signature and answer digest. Tool results can be megabytes, so their digest is
// computed lazily and at most once: only a batch whose signature matches an earlier one ever has
// its answers compared, and most batches in a session never repeat.

import type { Round } from '../../model/transcript.js';
import { answersDigest, batchSignature, type BatchSignature } from './signature.js';

/** A batch's answer digest on demand (memoized); null when the answers are unknown. */
export type LazyAnswers = () => string | null;

export interface RoundDigest {
  batch: BatchSignature;
  answersKnown: boolean;
  answers: LazyAnswers;
}

function lazyAnswers(batch: BatchSignature, answers: Round['answers']): LazyAnswers {
  if (answers === null) return () => null;
  let memo: string | null | undefined;
  let pending: Round['answers'] = answers;
  return () => {
    if (memo === undefined) {
      memo = answersDigest(batch, pending);
      // Drop the results once digested, so a held digest does not keep megabytes alive.
      pending = null;
    }
    return memo;
  };
}

/** Shared by detectors that read the same rounds; the last round is remembered by identity. */
export class RoundDigester {
  private lastRound: Round | null = null;
  private last: RoundDigest | null = null;

  /** Digest of a non-empty batch. */
  digest(round: Round): RoundDigest {
    if (this.lastRound === round && this.last !== null) return this.last;
    const batch = batchSignature(round.calls);
    const digest: RoundDigest = {
      batch,
      answersKnown: round.answers !== null,
      answers: lazyAnswers(batch, round.answers),
    };
    this.lastRound = round;
    this.last = digest;
    return digest;
  }
}
