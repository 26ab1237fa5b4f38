// Whether a round's tool work is new in its turn: a batch whose signature the turn has not run
// yet, or one it ran lately, now answered with something none of those recent runs got. This is
// the opposite of a loop's evidence, and what the ladder reads as varied, answered work (text that
// repeats beside it is narration, not the agent going round).
//
// Answers are compared only against the last RECENT batches, whose answer digests the cycle
// tracker keeps too (the same memoized digests, so nothing more is held or hashed): a signature
// last seen further back is new work again. Most batches never repeat, so most rounds never hash
// their results.

import type { LazyAnswers, RoundDigest } from './digest.js';

/** Recent batches whose answers a repeat is compared with (the cycle tracker's longest period). */
const RECENT = 8;

interface Recent {
  signature: string;
  answersKnown: boolean;
  answers: LazyAnswers;
}

export class WorkNovelty {
  /** Signatures run in this turn (short digests, one per distinct batch). */
  private readonly seen = new Set<string>();
  private recent: Recent[] = [];

  reset(): void {
    this.seen.clear();
    this.recent = [];
  }

  /** Plain JSON state; recent answers are digested so a restored tracker compares as this one would. */
  snapshot(): unknown {
    return {
      seen: [...this.seen],
      recent: this.recent.map((r) => ({ signature: r.signature, answersKnown: r.answersKnown, answers: r.answers() })),
    };
  }

  restore(state: unknown): void {
    this.reset();
    const o = (state ?? {}) as { seen?: unknown; recent?: unknown };
    if (Array.isArray(o.seen)) for (const x of o.seen) if (typeof x === 'string') this.seen.add(x);
    if (Array.isArray(o.recent)) {
      for (const r of o.recent as { signature?: unknown; answersKnown?: unknown; answers?: unknown }[]) {
        if (!r || typeof r.signature !== 'string') continue;
        const answers = typeof r.answers === 'string' ? r.answers : null;
        this.recent.push({ signature: r.signature, answersKnown: r.answersKnown === true, answers: () => answers });
      }
    }
  }

  /** Record the round's batch; true when it (with its answers) is new in the turn. */
  observe(digest: RoundDigest): boolean {
    const signature = digest.batch.signature;
    const novel = this.isNew(digest);
    this.seen.add(signature);
    this.recent.push({ signature, answersKnown: digest.answersKnown, answers: digest.answers });
    if (this.recent.length > RECENT) this.recent.shift();
    return novel;
  }

  private isNew(digest: RoundDigest): boolean {
    const signature = digest.batch.signature;
    if (!this.seen.has(signature)) return true;
    const earlier = this.recent.filter((r) => r.signature === signature);
    if (earlier.length === 0) return true;
    // Answers nobody can read are not evidence of progress.
    if (!digest.answersKnown) return false;
    const now = digest.answers();
    return earlier.every((r) => r.answersKnown && r.answers() !== now);
  }
}
