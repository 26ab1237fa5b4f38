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

/**
 * Shared by detectors that read the same rounds. A round's digest is found again by the round's
 * identity, weakly: a digester must not keep a round (and its argument trees) past its life.
 */
export class RoundDigester {
  private readonly byRound = new WeakMap<Round, RoundDigest>();

  /** Digest of a non-empty batch. */
  digest(round: Round): RoundDigest {
    const known = this.byRound.get(round);
    if (known !== undefined) return known;
    const batch = batchSignature(round.calls);
    const digest: RoundDigest = {
      batch,
      answersKnown: round.answers !== null,
      answers: lazyAnswers(batch, round.answers),
    };
    this.byRound.set(round, digest);
    return digest;
  }
}
