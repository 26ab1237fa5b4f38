// Whether a round's tool work is new in its turn: a batch whose signature the turn has not run
// yet, or one it ran lately, now answered with something none of those recent runs got. This is
// the opposite of a loop's evidence, and what the ladder reads as varied, answered work (text that
// repeats beside it is narration, not the agent going round).
//
// Answers are compared only against the last RECENT batches, whose answer digests the cycle
// tracker keeps too (the same memoized digests, so nothing more is held or hashed): a signature
// last seen further back is new work again. Most batches never repeat, so most rounds never hash
// their results.

import type { Novelty } from '../types.js';
import type { LazyAnswers, RoundDigest } from './digest.js';

/** Recent batches whose answers a repeat is compared with (the cycle tracker's longest period). */
const RECENT = 8;

export class WorkNovelty {
  // No set of every signature the turn ran: a signature outside the recent ones is new work
  // anyway, so the recent batches alone decide. They sit in a ring of parallel arrays, so a round
  // allocates nothing here unless its batch repeats.
  private readonly signatures: (string | null)[] = new Array<string | null>(RECENT).fill(null);
  private readonly known: boolean[] = new Array<boolean>(RECENT).fill(false);
  private readonly answers: (LazyAnswers | null)[] = new Array<LazyAnswers | null>(RECENT).fill(null);
  /** Batches recorded since the last reset; the newest sits at (size - 1) % RECENT. */
  private size = 0;

  reset(): void {
    this.signatures.fill(null);
    this.answers.fill(null);
    this.size = 0;
  }

  /** Plain JSON state, oldest first; recent answers are digested so a restored tracker compares as this one would. */
  snapshot(): unknown {
    const recent: { signature: string; answersKnown: boolean; answers: string | null }[] = [];
    const n = Math.min(this.size, RECENT);
    for (let k = this.size - n; k < this.size; k += 1) {
      const i = k % RECENT;
      recent.push({ signature: this.signatures[i]!, answersKnown: this.known[i]!, answers: this.answers[i]!() });
    }
    return { recent };
  }

  /** Restores a snapshot (one of an older build, which also listed every signature seen, too). */
  restore(state: unknown): void {
    this.reset();
    const o = (state ?? {}) as { recent?: unknown };
    if (!Array.isArray(o.recent)) return;
    for (const r of o.recent as { signature?: unknown; answersKnown?: unknown; answers?: unknown }[]) {
      if (!r || typeof r.signature !== 'string') continue;
      const answers = typeof r.answers === 'string' ? r.answers : null;
      this.push(r.signature, r.answersKnown === true, () => answers);
    }
  }

  /**
   * Record the round's batch; whether it (with its answers) is new in the turn. Where that takes
   * comparing answers, the answer is a function: the ledger asks it only for a round with a text
   * finding, so the other rounds never hash their results here.
   */
  observe(digest: RoundDigest): Novelty {
    const novel = this.isNew(digest);
    this.push(digest.batch.signature, digest.answersKnown, digest.answers);
    return novel;
  }

  private push(signature: string, known: boolean, answers: LazyAnswers): void {
    const i = this.size % RECENT;
    this.signatures[i] = signature;
    this.known[i] = known;
    this.answers[i] = answers;
    this.size += 1;
  }

  private isNew(digest: RoundDigest): Novelty {
    const signature = digest.batch.signature;
    let earlier: { known: boolean; answers: LazyAnswers }[] | null = null;
    for (let i = 0; i < RECENT; i += 1) {
      if (this.signatures[i] === signature) (earlier ??= []).push({ known: this.known[i]!, answers: this.answers[i]! });
    }
    if (earlier === null) return true;
    // Answers nobody can read are not evidence of progress.
    if (!digest.answersKnown) return false;
    // `earlier` is this round's own copy and the answers are memoized: asked later, it tells the same.
    const runs = earlier;
    return () => {
      const now = digest.answers();
      return runs.every((r) => r.known && r.answers() !== now);
    };
  }
}
