// The failure shapes of SPEC 0.4 (issue 54), within a turn:
// - `repeated_failure`: the same call failing with the same normalised error again within a
//   window, whatever calls come between (reads of the file between byte-identical edits), with no
//   successful change between. Seed 000's run breaks on the read between; this does not.
// - `same_error`: different calls answered with the same normalised error in a row: a broken
//   tool or environment answering every attempt alike while the arguments drift.
// A search that finds nothing (empty output, exit 1) is that search's answer, not a failure.

import type { Round } from '../../model/transcript.js';
import type { Finding, Measurement, ResumableRoundDetector, RoundObservation } from '../types.js';
import { answerFailed, answerRefused, foundNothing } from './failure.js';
import { batchClass } from './loop-detector.js';
import { answerLeadLines, errorBody } from './no-progress.js';
import { compileObservationPatterns, compileToolPatterns, type CallClassifier } from './patterns.js';
import { commandOf } from './shell.js';
import { callDigest, displayId } from './signature.js';

export interface FailureShapesOptions {
  /** Rounds a failure stays remembered for `repeated_failure`; null: both kinds are off. */
  window: number | null;
  /** Occurrences of one call's failure at which `repeated_failure` is reported. */
  repeatedFailureOccurrences: number;
  /** Rounds in a row answered with one error at which `same_error` is reported. */
  sameErrorRounds: number;
  readTools: readonly string[];
  transparentTools: readonly string[];
}

interface Tally {
  count: number;
  /** Round counter of the last occurrence. */
  last: number;
  first: number;
  /** Some round without this failure came between two occurrences: not seed 000's run. */
  interrupted: boolean;
}

interface ErrorRun {
  error: string;
  rounds: number;
  calls: string[];
  first: number;
  /** Every answer of the run refused its call (a permission or policy, the user). */
  refused: boolean;
  /** The commands (else the calls) refused so far, and whether one of them was sent again. */
  commands: string[];
  resent: boolean;
}

/**
 * A refusal says the same words whatever was refused, so different calls refused in a row are the
 * agent finding out what the policy allows, and a refusal steers one round later than an error,
 * unless a refused command was sent again. From the wild corpus's tune part: Gemini CLI refusing a
 * shell command, a listing, a glob and a question in a row is a loop (steered at the fourth); two
 * reads and a listing refused, then a listing that works, is not; Codex re-sending a rejected
 * script with an escalation flag is (steered at the third rejection, as before).
 */
const REFUSED_EXTRA_ROUNDS = 1;

/**
 * Lines successful answers printed that are remembered as not the command's own: a shell's
 * start-up banner is a line or two, printed by every command; 64 leaves room for a few tools'.
 */
const OK_LINES = 64;

class FailureShapes {
  private readonly tallies = new Map<string, Tally>();
  /** First output lines of successful answers this session (across turns: the environment stays). */
  private readonly okLines = new Set<string>();
  private run: ErrorRun | null = null;
  private turn: number | null = null;
  private rounds = 0;
  private readonly reads: CallClassifier;
  private readonly transparent: (name: string) => boolean;

  constructor(private readonly options: FailureShapesOptions) {
    this.reads = compileObservationPatterns(options.readTools);
    this.transparent = compileToolPatterns(options.transparentTools);
  }

  observe(round: Round): RoundObservation {
    const window = this.options.window;
    if (window === null) return { findings: [], measurements: [] };
    if (this.turn !== round.turn) this.reset(round.turn);
    if (round.calls.every((c) => this.transparent(c.name))) return { findings: [], measurements: [] };
    this.rounds += 1;
    const now = this.rounds;
    for (const [k, t] of this.tallies) if (t.last <= now - window) this.tallies.delete(k);

    const failures: { key: string; call: string; error: string; refused: boolean; command: string }[] = [];
    let changed = false;
    let answeredOk = false;
    const answers = round.answers;
    for (let i = 0; i < round.calls.length; i++) {
      const answer = answers?.[i];
      if (answer === undefined) continue;
      const call = round.calls[i]!;
      if (answerFailed(answer)) {
        const error = this.ownError(answer);
        if (foundNothing(call, error)) {
          answeredOk = true;
          continue;
        }
        const digest = callDigest(call);
        failures.push({ key: `${digest}\n${error}`, call: digest, error, refused: answerRefused(answer), command: commandOf(call.arguments) ?? digest });
      } else {
        answeredOk = true;
        if (!batchClass([call], this.reads).readOnly) changed = true;
        // Once full, the set no longer grows: the lines are not worth reading.
        if (this.okLines.size < OK_LINES) for (const line of answerLeadLines(answer)) if (this.okLines.size < OK_LINES) this.okLines.add(line);
      }
    }
    // A change that landed ends both shapes: what failed before may work now.
    if (changed) {
      this.tallies.clear();
      this.run = null;
      return { findings: [], measurements: [] };
    }
    const findings: Finding[] = [];
    const measurements: Measurement[] = [];
    this.repeatedFailure(failures, now, round.index, findings, measurements);
    this.sameError(failures, answeredOk, round.index, findings, measurements);
    return { findings, measurements };
  }

  /**
   * The failure's error without the leading lines successful answers print too (a shell's
   * start-up banner: "shellenv.sh: line 18: /bin/ps: Operation not permitted" before every
   * command's output): two searches that found nothing then read as such, not as one error.
   */
  private ownError(answer: NonNullable<Round['answers']>[number]): string {
    let error = errorBody(answer);
    if (this.okLines.size === 0) return error;
    for (const line of answerLeadLines(answer)) {
      if (!this.okLines.has(line)) break;
      const at = error.indexOf(line);
      if (at < 0) break;
      error = `${error.slice(0, at)} ${error.slice(at + line.length)}`.replace(/\s+/g, ' ').trim();
    }
    return error;
  }

  private repeatedFailure(failures: readonly { key: string }[], now: number, index: number, findings: Finding[], measurements: Measurement[]): void {
    const threshold = this.options.repeatedFailureOccurrences;
    let top: Tally | null = null;
    for (const { key } of new Map(failures.map((f) => [f.key, f])).values()) {
      let t = this.tallies.get(key);
      if (t === undefined) t = { count: 0, last: now, first: index, interrupted: false };
      else if (t.last < now - 1) t.interrupted = true;
      t.count += 1;
      t.last = now;
      this.tallies.set(key, t);
      if (top === null || t.count > top.count) top = t;
      // Every occurrence in consecutive rounds is seed 000's run, which has its own entries.
      if (t.count >= threshold && t.interrupted) {
        const m = measurement('repeated_failure', 'occurrences', t.count, threshold);
        findings.push(finding('repeated_failure', { occurrences: t.count, threshold, window: this.options.window, first_round: t.first, failure: displayId(key) }, m));
      }
    }
    if (top !== null) measurements.push(measurement('repeated_failure', 'occurrences', top.count, threshold));
  }

  private sameError(failures: readonly { call: string; error: string; refused: boolean; command: string }[], answeredOk: boolean, index: number, findings: Finding[], measurements: Measurement[]): void {
    const error = failures[0]?.error;
    if (error === undefined || answeredOk || failures.some((f) => f.error !== error)) {
      this.run = null;
      return;
    }
    if (this.run === null || this.run.error !== error) this.run = { error, rounds: 0, calls: [], first: index, refused: true, commands: [], resent: false };
    const run = this.run;
    run.rounds += 1;
    for (const f of failures) if (!run.calls.includes(f.call) && run.calls.length < 64) run.calls.push(f.call);
    for (const f of failures) {
      if (!f.refused) run.refused = false;
      if (run.commands.includes(f.command)) run.resent = true;
      else if (run.commands.length < 64) run.commands.push(f.command);
    }
    const threshold = this.options.sameErrorRounds + (run.refused && !run.resent ? REFUSED_EXTRA_ROUNDS : 0);
    const m = measurement('same_error', 'rounds', run.rounds, threshold);
    measurements.push(m);
    // Different calls: one call answered alike every round is seed 000's run.
    if (run.rounds >= threshold && run.calls.length >= 2) {
      findings.push(finding('same_error', { rounds: run.rounds, threshold, different_calls: run.calls.length, first_round: run.first, error: displayId(error) }, m));
    }
  }

  private reset(turn: number): void {
    this.turn = turn;
    this.rounds = 0;
    this.tallies.clear();
    this.run = null;
  }

  /** Plain JSON (the live hook keeps it between calls). */
  snapshot(): unknown {
    return { turn: this.turn, rounds: this.rounds, tallies: [...this.tallies.entries()], run: this.run, okLines: [...this.okLines] };
  }

  restore(state: unknown): void {
    const o = (state ?? {}) as { turn?: unknown; rounds?: unknown; tallies?: unknown; run?: unknown; okLines?: unknown };
    const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    this.turn = typeof o.turn === 'number' ? o.turn : null;
    this.rounds = n(o.rounds);
    this.tallies.clear();
    if (Array.isArray(o.tallies)) {
      for (const e of o.tallies) {
        if (!Array.isArray(e) || typeof e[0] !== 'string' || typeof e[1] !== 'object' || e[1] === null) continue;
        const t = e[1] as Partial<Tally>;
        this.tallies.set(e[0], { count: n(t.count), last: n(t.last), first: n(t.first), interrupted: t.interrupted === true });
      }
    }
    this.okLines.clear();
    if (Array.isArray(o.okLines)) for (const line of o.okLines) if (typeof line === 'string' && this.okLines.size < OK_LINES) this.okLines.add(line);
    const r = o.run as Partial<ErrorRun> | null | undefined;
    this.run =
      r && typeof r.error === 'string' && Array.isArray(r.calls)
        ? {
            error: r.error,
            rounds: n(r.rounds),
            calls: r.calls.filter((c): c is string => typeof c === 'string'),
            first: n(r.first),
            // A run saved by an older build knew nothing of refusals: judged as an error run, as it was.
            refused: r.refused === true,
            commands: Array.isArray(r.commands) ? r.commands.filter((c): c is string => typeof c === 'string') : [],
            resent: r.resent === true,
          }
        : null;
  }
}

function measurement(kind: 'repeated_failure' | 'same_error', statistic: string, value: number, threshold: number): Measurement {
  return { detector: 'tool_batch', kind, statistic, value, threshold, direction: 'above' };
}

function finding(kind: 'repeated_failure' | 'same_error', evidence: Finding['evidence'], m: Measurement): Finding {
  // Exact counts against a threshold: no probability to state.
  return { detector: 'tool_batch', kind, confidence: null, strike: null, evidence, loop: false, ambiguous: false, crossed: [m], excerpts: [] };
}

export function createFailureShapesDetector(options: FailureShapesOptions): ResumableRoundDetector {
  const shapes = new FailureShapes(options);
  return {
    name: 'tool_batch',
    observe: (round) => shapes.observe(round),
    snapshot: () => shapes.snapshot(),
    restore: (state) => shapes.restore(state),
  };
}
