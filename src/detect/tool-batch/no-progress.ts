// `no_progress` (SPEC 0.3): a stretch of rounds in which the agent learns nothing and changes
// nothing. A round is stale when every call in it either read something and got an answer already
// seen in the window, or failed with an error already seen in it (its text normalised), whatever
// the exact arguments: the shapes seed 000's run and the cycle check cannot see, because the
// arguments drift (an edit re-sent with slightly different text, failing the same way each time).
// A call that succeeded and is not a read is a change: the stretch ends there.

import type { Round, ToolAnswer } from '../../model/transcript.js';
import type { Finding, Measurement, ResumableRoundDetector, RoundObservation } from '../types.js';
import { answerFailed, foundNothing } from './failure.js';
import { batchClass } from './loop-detector.js';
import { compileObservationPatterns, compileToolPatterns, type CallClassifier } from './patterns.js';
import { answerDigest, callDigest, displayId } from './signature.js';

export interface NoProgressOptions {
  /** Rounds an answer or an error stays "already seen"; null: the detector is off. */
  window: number | null;
  /** Consecutive stale rounds at which the stretch is reported. */
  staleRounds: number;
  /** Reads for this detector: `observation_tools` and `no_progress_read_tools` together. */
  readTools: readonly string[];
  transparentTools: readonly string[];
}

/**
 * The parts of an error message that change between two tries of the same failure without
 * saying anything new: timestamps, hex ids, paths, line and column numbers, durations. `needs`:
 * a character the rule cannot match without; no replacement writes a digit, `/` or `-`, so a text
 * without it before the rules has none at any rule, and the rule is passed over.
 */
export const NORMALISERS: readonly { re: RegExp; by: string; needs: string | null }[] = [
  { re: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, by: '<time>', needs: 'digit' },
  { re: /\b\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, by: '<time>', needs: 'digit' },
  { re: /\b0x[0-9a-f]+\b/gi, by: '<hex>', needs: 'digit' },
  { re: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, by: '<id>', needs: '-' },
  { re: /\b[0-9a-f]{7,64}\b/g, by: '<hex>', needs: null },
  { re: /(?:[A-Za-z]:)?(?:\.{0,2}\/|~\/)?(?:[\w.@+-]+\/)+[\w.@+-]+/g, by: '<path>', needs: '/' },
  { re: /\b(line|lines|ln|col|column)\s*\d+(?:\s*[-:,]\s*\d+)?/gi, by: '$1 <n>', needs: 'digit' },
  { re: /:\d+(?::\d+)?\b/g, by: ':<n>', needs: 'digit' },
  { re: /\b\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds|m|min|minutes|h|µs|us|ns)\b/gi, by: '<duration>', needs: 'digit' },
];

const DIGIT = /\d/;

/** Errors are read up to here: what differs past the first lines is a stack, not a new failure. */
export const ERROR_HEAD_CHARS = 400;

/**
 * The error's text with its incidental parts replaced, so two tries of one failure compare equal.
 * Passing over the rules a text cannot match (28% of the real-shaped store's answer lines have no
 * digit, 81% no `/`) took its 250,587 first lines from 0.63-0.67 s to 0.37-0.44 s (issue 59).
 */
export function normaliseError(text: string): string {
  let t = text.length > ERROR_HEAD_CHARS ? text.slice(0, ERROR_HEAD_CHARS) : text;
  const digit = DIGIT.test(t);
  for (const { re, by, needs } of NORMALISERS) {
    if (needs === 'digit' ? !digit : needs !== null && !t.includes(needs)) continue;
    t = t.replace(re, by);
  }
  return t.replace(/\s+/g, ' ').trim();
}

/** Lines of a shell tool's wrapper (Codex: "Exit code: 1", "Wall time: 0.1 seconds", "Output:"): status, not output. */
const WRAPPER_LINE = /^(?:exit code:?\s*-?\d+|wall time:.*|output:|process exited with code -?\d+|chunk id:.*|original token count:.*)$/i;

/** How many of an answer's first output lines leadLines() keeps: banners are a line or two. */
const LEAD_LINES = 3;

/**
 * An answer's first output lines (its wrapper's status lines passed over), each normalised as an
 * error is: what tells a start-up banner that every command prints from the command's own output.
 */
function leadLines(text: string): string[] {
  const head = text.length > ERROR_HEAD_CHARS ? text.slice(0, ERROR_HEAD_CHARS) : text;
  const lines: string[] = [];
  for (const raw of head.split('\n')) {
    const line = normaliseError(raw);
    if (line === '' || WRAPPER_LINE.test(line)) continue;
    lines.push(line);
    if (lines.length === LEAD_LINES) break;
  }
  return lines;
}

/** leadLines() of an answer, read from its head where its text was dropped. */
export function answerLeadLines(answer: ToolAnswer): readonly string[] {
  return leadLines(answer.head ?? answer.content);
}

/**
 * A failed answer's key. The reader thread drops the text but sends it normalised; where only a
 * digest is known (the hook), the error compares exactly, not normalised.
 */
function errorKey(tool: string, answer: ToolAnswer): string {
  return `e|${tool.length}:${tool}|${errorBody(answer)}`;
}

/** A failed answer's normalised text (`#digest` where only a digest is known). */
export function errorBody(answer: ToolAnswer): string {
  return answer.normalizedError ?? (answer.content.length > 0 || answer.digest === undefined ? normaliseError(answer.content) : `#${answer.digest}`);
}

function readKey(tool: string, answer: ToolAnswer): string {
  return `r|${tool.length}:${tool}|${answerDigest(answer)}`;
}

interface Stretch {
  /** Round index where the current stale stretch began; null when the last round made progress. */
  first: number | null;
  /** The first stale round's keys, and whether every later one had the same: one batch repeated. */
  keys: string | null;
  single: boolean;
  stale: number;
  reads: number;
  failures: number;
}

class NoProgressTracker {
  /** Each key's last round (within the turn), oldest first: what "already seen in the window" reads. */
  private readonly seen = new Map<string, number>();
  private stretch: Stretch = emptyStretch();
  private readonly reads: CallClassifier;
  private readonly transparent: (name: string) => boolean;
  private turn: number | null = null;
  private rounds = 0;

  constructor(private readonly options: NoProgressOptions) {
    this.reads = compileObservationPatterns(options.readTools);
    this.transparent = compileToolPatterns(options.transparentTools);
  }

  observe(round: Round): RoundObservation {
    const window = this.options.window;
    if (window === null) return { findings: [], measurements: [] };
    if (this.turn !== round.turn) this.reset(round.turn);
    const calls = round.calls;
    if (calls.every((c) => this.transparent(c.name))) return { findings: [], measurements: [] };
    this.rounds += 1;
    const now = this.rounds;
    this.forget(now - window);

    const answers = round.answers;
    let stale = answers !== null && answers.length === calls.length;
    let reads = 0;
    let failures = 0;
    const keys: string[] = [];
    for (let i = 0; i < calls.length; i++) {
      const answer = answers?.[i];
      // An unanswered call may have changed anything: it never extends a stretch; nor does a
      // poll still waiting for output, which answered nothing.
      if (answer === undefined || answer.waiting === true) {
        stale = false;
        continue;
      }
      const call = calls[i]!;
      let key: string;
      const failed = answerFailed(answer);
      if (failed && foundNothing(call, errorBody(answer))) {
        // "Nothing found" answers that search (issue 54): the same search again is stale, another one is not.
        key = `n|${callDigest(call)}`;
        reads += 1;
      } else if (failed) {
        key = errorKey(call.name, answer);
        failures += 1;
      } else if (batchClass([call], this.reads).readOnly) {
        key = readKey(call.name, answer);
        reads += 1;
      } else {
        // A change that landed: progress, whatever came back.
        stale = false;
        continue;
      }
      if (!this.seen.has(key)) stale = false;
      keys.push(key);
    }
    for (const k of keys) {
      this.seen.delete(k);
      this.seen.set(k, now);
    }

    if (!stale) {
      this.stretch = emptyStretch();
      return { findings: [], measurements: [] };
    }
    const s = this.stretch;
    s.first ??= round.index;
    const joined = keys.join('\n');
    if (s.keys === null) s.keys = joined;
    else if (s.keys !== joined) s.single = false;
    s.stale += 1;
    s.reads += reads;
    s.failures += failures;
    const m = measurement(s.stale, this.options.staleRounds);
    if (s.stale < this.options.staleRounds) return { findings: [], measurements: [m] };
    // One batch answered alike is seed 000's run, which already has an entry every round: said
    // once (the steer a read-only repeat would otherwise never get), not on every further round.
    if (s.single && s.stale > this.options.staleRounds) return { findings: [], measurements: [m] };
    return { findings: [this.finding(s, window, keys, m)], measurements: [m] };
  }

  private finding(s: Stretch, window: number, keys: readonly string[], m: Measurement): Finding {
    return {
      detector: 'tool_batch',
      kind: 'no_progress',
      // A count of stale rounds against an exact threshold: no probability to state.
      confidence: null,
      strike: null,
      evidence: {
        stale_rounds: s.stale,
        threshold: this.options.staleRounds,
        window,
        first_round: s.first ?? 0,
        seen_reads: s.reads,
        seen_failures: s.failures,
        last: displayId(keys.join('\n')),
        // One batch answered alike every round: seed 000's run judges it, so this only steers.
        same_answers: s.single,
      },
      loop: false,
      ambiguous: false,
      crossed: [m],
      excerpts: [],
    };
  }

  /** Keys last seen before `oldest` are out of the window. */
  private forget(oldest: number): void {
    for (const [k, at] of this.seen) {
      if (at > oldest) break;
      this.seen.delete(k);
    }
  }

  private reset(turn: number): void {
    this.turn = turn;
    this.seen.clear();
    this.rounds = 0;
    this.stretch = emptyStretch();
  }

  /** Plain JSON (the live hook keeps it between calls). */
  snapshot(): unknown {
    return { turn: this.turn, rounds: this.rounds, seen: [...this.seen.entries()], stretch: { ...this.stretch } };
  }

  restore(state: unknown): void {
    const o = (state ?? {}) as { turn?: unknown; rounds?: unknown; seen?: unknown; stretch?: Partial<Stretch> };
    const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
    this.turn = typeof o.turn === 'number' ? o.turn : null;
    this.rounds = n(o.rounds);
    this.seen.clear();
    if (Array.isArray(o.seen)) {
      for (const e of o.seen) if (Array.isArray(e) && typeof e[0] === 'string') this.seen.set(e[0], n(e[1]));
    }
    const s = o.stretch ?? {};
    this.stretch = {
      first: typeof s.first === 'number' ? s.first : null,
      keys: typeof s.keys === 'string' ? s.keys : null,
      single: s.single !== false,
      stale: n(s.stale),
      reads: n(s.reads),
      failures: n(s.failures),
    };
  }
}

function emptyStretch(): Stretch {
  return { first: null, keys: null, single: true, stale: 0, reads: 0, failures: 0 };
}

function measurement(value: number, threshold: number): Measurement {
  return { detector: 'tool_batch', kind: 'no_progress', statistic: 'stale_rounds', value, threshold, direction: 'above' };
}

export function createNoProgressDetector(options: NoProgressOptions): ResumableRoundDetector {
  const tracker = new NoProgressTracker(options);
  return {
    name: 'tool_batch',
    observe: (round) => tracker.observe(round),
    snapshot: () => tracker.snapshot(),
    restore: (state) => tracker.restore(state),
  };
}
