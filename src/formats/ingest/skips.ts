// What a file's summary says was set aside: skipped lines (the first MAX_KEPT_SKIPS kept, every
// one counted) and ignored record kinds (counted by kind, a bounded number of kinds).

import type { InputSummary } from '../input.js';
import { MAX_KEPT_SKIPS, type SkippedLine } from '../../read/skipped.js';
import { sanitize } from '../../sanitize.js';

/** Distinct kinds counted in inputs[].ignored before the rest are counted as `other`. */
const MAX_IGNORED_KINDS = 50;

export class SkipTally {
  constructor(
    private readonly summary: InputSummary,
    private readonly onSkip: ((skipped: SkippedLine) => void) | undefined,
  ) {}

  /** SPEC: inputs[].skipped keeps the first MAX_KEPT_SKIPS; skipped_lines counts them all. */
  skip(line: number | null, reason: string, announce = true): void {
    this.summary.skipped_lines += 1;
    if (this.summary.skipped.length >= MAX_KEPT_SKIPS) return;
    const skipped: SkippedLine = { line, reason: sanitize(reason, { max: 300 }) };
    this.summary.skipped.push(skipped);
    if (announce) this.onSkip?.(skipped);
  }

  /** Skips past the ones kept, known only by their number. */
  count(n: number): void {
    this.summary.skipped_lines += n;
  }

  /** Lines skipped so far, every one counted. */
  get counted(): number {
    return this.summary.skipped_lines;
  }

  ignore(kind: string): void {
    // Kinds come from the file: a bounded number of them (the rest counted as `other`), in an
    // object without a prototype, so that no kind name can reach Object's own properties.
    const counts = (this.summary.ignored ??= Object.create(null) as Record<string, number>);
    const name = sanitize(kind, { max: 80 });
    const key = Object.hasOwn(counts, name) || Object.keys(counts).length < MAX_IGNORED_KINDS ? name : 'other';
    counts[key] = (counts[key] ?? 0) + 1;
  }
}
