// Runs of the same finding (issue 53 item 12, issue 56 item 2, issue 59 item 2). A loop of a
// million rounds is a million findings that differ only in their round, their line, what the
// round cost and a count that rises by one: the ledger holds such a stretch as ONE entry with a
// `run` (docs/json.md "Runs"), so its memory, its JSON and every format's time follow the number of
// distinct findings, not of rounds, while every round's verdict stays recoverable as a range.
//
// What folds: consecutive rounds of one turn whose findings are the same list, entry for entry,
// but for round, line, round_usage, trace ids, and numbers of `strike` and `evidence` that move by
// the same whole step every round. Anything else (a kind, a level, after_stop, a reminder, a judge
// verdict, a shape) starts a new entry, so every steer and stop transition stays an entry of its
// own. A round's entries fold together, so two runs never half-overlap (loop shapes count each
// round once). Short stretches stay as they were: only past FOLD_AFTER rounds do they fold.

import type { Evidence, EvidenceValue } from '../detect/types.js';
import type { RoundUsage } from '../money/usage.js';
import type { EntryRun, LedgerEntry, SessionLedger, UnlistedFindings } from './types.js';

/**
 * A stretch of this many rounds stays one entry per round: the ledgers of fixtures and of most real
 * loops (a stop comes at the third repeat) read as before; a longer stretch folds into one entry.
 */
export const FOLD_AFTER = 8;

/**
 * The entries a session lists at most; the findings after are counted (`unlisted`), not listed. Runs
 * fold any regular loop into a few entries (the most any of 1,834 real sessions of the wild corpus
 * lists is 20), but a finding that fires on irregular rounds does not fold: this bounds its memory.
 */
export const MAX_ENTRIES = 10_000;

/** Rounds (findings) an entry stands for. */
export function roundsOf(e: Pick<LedgerEntry, 'run'>): number {
  return e.run?.count ?? 1;
}

/** The last round an entry stands for. */
export function lastRoundOf(e: Pick<LedgerEntry, 'round' | 'run'>): number {
  return e.run?.last_round ?? e.round;
}

/**
 * The rounds an entry stands for, as a key: its round, or its run's range. A round's entries fold
 * together, so two entries' ranges are the same or apart: a set of keys counts each round once.
 */
export function roundsKey(e: Pick<LedgerEntry, 'round' | 'run'>): number | string {
  return e.run === undefined ? e.round : `${e.round}-${e.run.last_round}`;
}

/** Tokens and dollars of every round an entry stands for. */
export function usageOf(e: Pick<LedgerEntry, 'round_usage' | 'run'>): RoundUsage | undefined {
  return e.run?.usage ?? e.round_usage;
}

/** Findings of a list of entries, each round of a run counted (summary.entries, the overview's findings). */
export function findingsOf(entries: Iterable<Pick<LedgerEntry, 'run'>>): number {
  let n = 0;
  for (const e of entries) n += roundsOf(e);
  return n;
}

/** A session's findings: its entries' (runs counted round by round) and those past the entries it lists. */
export function sessionFindings(s: Pick<SessionLedger, 'entries' | 'unlisted'>): number {
  return findingsOf(s.entries) + (s.unlisted?.findings ?? 0);
}

/** A number at step `i` of a run going from `first` to `last` in `steps` equal steps. */
const at = (first: number, last: number, steps: number, i: number) => (steps === 0 ? first : first + ((last - first) / steps) * i);

/**
 * The entries of every round a run stands for (`--all`), each as it would have been without
 * folding: counts and moved evidence at their step, the line known only at the run's two ends,
 * round_usage only on its first round (the run keeps the sum).
 */
export function* expandRun(e: LedgerEntry): Generator<LedgerEntry> {
  const run = e.run;
  if (run === undefined) {
    yield e;
    return;
  }
  const { run: _run, ...first } = e;
  const steps = run.count - 1;
  const period = run.period ?? 1;
  for (let i = 0; i < run.count; i++) {
    if (i === 0) {
      yield first;
      continue;
    }
    const { round_usage: _usage, ...rest } = first;
    const strike = e.strike && run.last_strike ? { ...e.strike, count: at(e.strike.count, run.last_strike.count, steps, i), total: at(e.strike.total, run.last_strike.total, steps, i) } : e.strike;
    let evidence = e.evidence;
    if (run.evidence_varies === true) {
      // Rounds in between are not kept: they carry only the detail every round shared, the last its own.
      evidence = i === steps ? { ...e.evidence, ...run.last_evidence } : sharedEvidence(e.evidence, run);
    } else if (run.last_evidence !== undefined) {
      evidence = { ...e.evidence };
      for (const [k, v] of Object.entries(run.last_evidence)) {
        const f = e.evidence[k];
        if (typeof f === 'number' && typeof v === 'number') evidence[k] = at(f, v, steps, i);
      }
    }
    yield { ...rest, round: run.first_round + i * period, line: i === steps ? run.last_line : null, strike, evidence };
  }
}

/**
 * The first round's evidence without its numbers that may have moved within the run: only the
 * run's largest of each is kept, so a middle round's own value is not known.
 */
function sharedEvidence(first: Evidence, run: EntryRun): Evidence {
  const out: Evidence = {};
  for (const [k, v] of Object.entries(first)) if (!(run.last_evidence !== undefined && k in run.last_evidence) && !(run.max_evidence !== undefined && k in run.max_evidence)) out[k] = v;
  return out;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The step a number took from `a` to `b`, or null when it may not move (not a whole number). */
function step(a: unknown, b: unknown): number | null {
  if (a === b) return 0;
  return isNumber(a) && isNumber(b) ? b - a : null;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false;
    if (!sameValue((a as Record<string, unknown>)[ka[i]!], (b as Record<string, unknown>)[kb[i]!])) return false;
  }
  return true;
}

/**
 * Fields that may differ between the rounds of a run (the numbers of strike and evidence aside).
 * `call` is a label of the run's first round: the shape says the rounds repeat one loop.
 */
const FREE = new Set(['round', 'line', 'round_usage', 'trace', 'strike', 'evidence', 'call']);

/**
 * A text finding's detail (its similarity, sizes, confidence) changes every round of a loop of
 * text: its runs fold on the kind and the decisions alone, keeping the largest of each number.
 */
const variesFreely = (e: Pick<LedgerEntry, 'detector'>) => e.detector === 'output' || e.detector === 'thinking';

const sameKeys = (a: object, b: object) => {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
};

/**
 * Whether `next` (the round after `prev`) continues the run that began with `first` `count`
 * rounds before it: the same but for the free fields, every moving number by the step it took so far.
 */
function continues(first: LedgerEntry, prev: LedgerEntry, next: LedgerEntry, count: number): boolean {
  const keys = Object.keys(next);
  for (const k of Object.keys(prev)) if (!(k in next)) return false;
  const loose = variesFreely(next);
  for (const k of keys) {
    if (FREE.has(k) || (loose && k === 'confidence')) continue;
    if (!sameValue((prev as unknown as Record<string, unknown>)[k], (next as unknown as Record<string, unknown>)[k])) return false;
  }
  const moves = (a: Record<string, unknown>, p: Record<string, unknown>, n: Record<string, unknown>) => {
    const nk = Object.keys(n);
    if (nk.length !== Object.keys(p).length) return false;
    for (const k of nk) {
      const s = step(p[k], n[k]);
      if (s === null) {
        if (!sameValue(p[k], n[k])) return false;
        continue;
      }
      // The step so far: from the first round to `prev` in count − 1 steps.
      const so = step(a[k], p[k]);
      if (so === null || (count > 1 && so !== s * (count - 1))) return false;
      if (count === 1 && so !== 0) return false;
    }
    return true;
  };
  if ((prev.strike === null) !== (next.strike === null)) return false;
  if (loose) return (prev.strike === null || sameKeys(prev.strike, next.strike!)) && sameKeys(prev.evidence, next.evidence);
  if (prev.strike && next.strike && first.strike && !moves(first.strike as unknown as Record<string, unknown>, prev.strike as unknown as Record<string, unknown>, next.strike as unknown as Record<string, unknown>)) return false;
  return moves(first.evidence, prev.evidence, next.evidence);
}

const NANO = 1e9;

/** Sums round usage as loop shapes do: tokens that are known, dollars as whole billionths. */
class UsageSum {
  private tokens = 0;
  private tokensKnown = false;
  private nanos = 0;
  private priced = false;
  private any = false;

  add(u: RoundUsage | undefined): void {
    if (u === undefined) return;
    this.any = true;
    if (u.tokens !== null) {
      this.tokens += u.tokens;
      this.tokensKnown = true;
    }
    if (u.usd !== null) {
      this.nanos += Math.round(u.usd * NANO);
      this.priced = true;
    }
  }

  total(): RoundUsage | undefined {
    return this.any ? { tokens: this.tokensKnown ? this.tokens : null, usd: this.priced ? this.nanos / NANO : null } : undefined;
  }
}

/** The longest pattern of rounds a run may repeat: A A A B is 4, a failing call with a read between is 2. */
export const MAX_PERIOD = 8;

/** One round's place in a run's pattern: its entries at the run's first period, and at its latest. */
interface Phase {
  first: LedgerEntry[];
  prev: LedgerEntry[];
  /** Rounds of this phase so far. */
  count: number;
  /** Once folded: each entry's running usage. */
  sums: UsageSum[] | null;
  /** Once folded: each text entry's largest evidence numbers so far. */
  peaks: Evidence[] | null;
  /** Once folded: whether some round's text entry had numbers other than the first's (its two ends may agree). */
  varied: boolean[] | null;
}

interface OpenRun {
  /** Index in the session's entries of the run's first round's first entry. */
  at: number;
  period: number;
  phases: Phase[];
  firstRound: number;
  lastRound: number;
  turn: number;
  folded: boolean;
}

/** A round not (yet) folded: what a run of a longer period may start from. */
interface Recent {
  round: number;
  turn: number;
  entries: readonly LedgerEntry[];
  at: number;
}

const sameList = (phase: Pick<Phase, 'first' | 'prev' | 'count'>, added: readonly LedgerEntry[]) =>
  added.length === phase.first.length && added.every((e, i) => continues(phase.first[i]!, phase.prev[i]!, e, phase.count));

/**
 * Folds a session's entries as rounds add them (ledger/build.ts, one per session). A run repeats
 * a pattern of `period` rounds (1: the same finding every round); each round of the pattern, a
 * phase, folds on its own, so every entry's run still stands for rounds first_round, first_round +
 * period, … last_round, and the rounds of the entries of one phase are those of no other entry.
 */
export class RunFolder {
  private open: OpenRun | null = null;
  /** The last MAX_PERIOD rounds whose entries stand alone in the list (none once a run folds them). */
  private recent: Recent[] = [];

  /** Once the list is full: the findings counted instead. */
  private past: Unlisted | null = null;

  constructor(
    private readonly foldAfter = FOLD_AFTER,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The entries of round `round` of turn `turn` (none: a round without findings), appended to `entries` or folded into its open run. */
  add(entries: LedgerEntry[], added: readonly LedgerEntry[], round: number, turn: number): void {
    if (this.past !== null) {
      this.past.add(added, round);
      return;
    }
    const o = this.open;
    if (o !== null && round === o.lastRound + 1 && turn === o.turn) {
      const phase = o.phases[(round - o.firstRound) % o.period]!;
      if (sameList(phase, added)) {
        if (o.folded) {
          phase.count += 1;
          phase.prev = [...added];
          o.lastRound = round;
          this.extend(o, phase);
          return;
        }
        if (!this.fits(entries, added, round)) return;
        phase.count += 1;
        phase.prev = [...added];
        o.lastRound = round;
        entries.push(...added);
        this.remember(entries, added, round, turn);
        if (o.lastRound - o.firstRound + 1 > this.foldAfter * o.period) this.fold(entries, o);
        return;
      }
    }
    if (!this.fits(entries, added, round)) return;
    this.open = this.start(added, round, turn);
    entries.push(...added);
    this.remember(entries, added, round, turn);
  }

  /** Whether the list is full: this round's findings and every later round's are counted, not listed. */
  get full(): boolean {
    return this.past !== null;
  }

  /** The findings past the entries listed, if any. */
  unlisted(): UnlistedFindings | undefined {
    return this.past?.snapshot(this.maxEntries);
  }

  /** Whether the round's entries fit the list: else they and every later round's are counted, not listed. */
  private fits(entries: readonly LedgerEntry[], added: readonly LedgerEntry[], round: number): boolean {
    if (entries.length + added.length <= this.maxEntries) return true;
    this.open = null;
    this.recent = [];
    this.past = new Unlisted();
    this.past.add(added, round);
    return false;
  }

  private remember(entries: LedgerEntry[], added: readonly LedgerEntry[], round: number, turn: number): void {
    this.recent.push({ round, turn, entries: added, at: entries.length - added.length });
    if (this.recent.length > MAX_PERIOD) this.recent.shift();
  }

  /** A run whose pattern round `round` repeats: the shortest period that the rounds just before it allow. */
  private start(added: readonly LedgerEntry[], round: number, turn: number): OpenRun | null {
    const recent = this.recent;
    for (let period = 1; period <= recent.length; period++) {
      const from = recent[recent.length - period]!;
      // The period's rounds are the ones just before, all of this turn, and hold some finding.
      if (from.round !== round - period || from.turn !== turn) break;
      const rounds = recent.slice(recent.length - period);
      if (rounds.every((r) => r.entries.length === 0)) continue;
      const phases = rounds.map((r): Phase => ({ first: [...r.entries], prev: [...r.entries], count: 1, sums: null, peaks: null, varied: null }));
      if (!sameList(phases[0]!, added)) continue;
      phases[0]!.count = 2;
      phases[0]!.prev = [...added];
      return { at: from.at, period, phases, firstRound: from.round, lastRound: round, turn, folded: false };
    }
    return null;
  }

  /** The rounds so far become one entry per finding of a period's round, each with its run. */
  private fold(entries: LedgerEntry[], o: OpenRun): void {
    o.folded = true;
    this.recent = [];
    for (const phase of o.phases) {
      phase.sums = phase.first.map(() => new UsageSum());
      phase.peaks = phase.first.map(() => ({}));
      phase.varied = phase.first.map(() => false);
    }
    let i = o.at;
    for (let round = o.firstRound; round <= o.lastRound; round++) {
      const phase = o.phases[(round - o.firstRound) % o.period]!;
      phase.sums!.forEach((sum, k) => {
        const e = entries[i++]!;
        sum.add(e.round_usage);
        raisePeaks(phase, k, e);
      });
    }
    entries.length = o.at + o.phases.reduce((n, phase) => n + phase.first.length, 0);
    o.phases.forEach((phase) => phase.first.forEach((e, k) => this.settle(e, phase.prev[k]!, o, phase, k)));
  }

  private extend(o: OpenRun, phase: Phase): void {
    phase.first.forEach((e, k) => {
      phase.sums![k]!.add(phase.prev[k]!.round_usage);
      raisePeaks(phase, k, phase.prev[k]!);
      this.settle(e, phase.prev[k]!, o, phase, k);
    });
  }

  /** The run's fields as of its phase's last round, `last`. */
  private settle(e: LedgerEntry, last: LedgerEntry, o: OpenRun, phase: Phase, k: number): void {
    const run: EntryRun = { first_round: e.round, last_round: last.round, count: phase.count, last_line: last.line };
    if (o.period > 1) run.period = o.period;
    if (last.strike !== null) run.last_strike = { ...last.strike };
    const moved: Evidence = {};
    let anyMoved = false;
    for (const [key, v] of Object.entries(last.evidence) as [string, EvidenceValue][]) {
      if (v !== e.evidence[key]) {
        moved[key] = v;
        anyMoved = true;
      }
    }
    if (anyMoved) run.last_evidence = moved;
    if (variesFreely(e) && (anyMoved || last.confidence !== e.confidence || phase.varied![k]!)) {
      run.evidence_varies = true;
      run.max_evidence = { ...phase.peaks![k]! };
    }
    const usage = phase.sums![k]!.total();
    if (usage !== undefined) run.usage = usage;
    e.run = run;
  }
}

/** A text entry's numbers (evidence and confidence) raise the run's largest so far, and mark it varied where they differ from its first round's. */
function raisePeaks(phase: Phase, k: number, e: LedgerEntry): void {
  if (!variesFreely(e)) return;
  const peaks = phase.peaks![k]!;
  const first = phase.first[k]!;
  if (e.confidence !== first.confidence) phase.varied![k] = true;
  for (const [key, v] of Object.entries(e.evidence)) {
    if (typeof v !== 'number') continue;
    if (v !== first.evidence[key]) phase.varied![k] = true;
    if (!(typeof peaks[key] === 'number' && (peaks[key] as number) >= v)) peaks[key] = v;
  }
}

/** Findings counted past the entries a session lists. */
class Unlisted {
  private findings = 0;
  private rounds = 0;
  private first = 0;
  private last = 0;
  private steers = 0;
  private stops = 0;
  private readonly kinds = new Map<string, number>();
  private readonly usage = new UsageSum();

  add(added: readonly LedgerEntry[], round: number): void {
    if (added.length === 0) return;
    if (this.rounds === 0) this.first = round;
    this.last = round;
    this.rounds += 1;
    // A round's entries carry the same round's figures: counted once per round.
    this.usage.add(added[0]!.round_usage);
    for (const e of added) {
      this.findings += 1;
      if (e.intervention.enforce === 'steer') this.steers += 1;
      if (e.intervention.enforce === 'stop') this.stops += 1;
      this.kinds.set(e.kind, (this.kinds.get(e.kind) ?? 0) + 1);
    }
  }

  snapshot(max: number): UnlistedFindings {
    const usage = this.usage.total();
    return {
      findings: this.findings,
      rounds: this.rounds,
      first_round: this.first,
      last_round: this.last,
      steers: this.steers,
      stops: this.stops,
      kinds: Object.fromEntries([...this.kinds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      ...(usage !== undefined ? { usage } : {}),
      reason: `a session lists at most ${max.toLocaleString('en-US')} entries: its findings from round ${this.first.toLocaleString('en-US')} on are counted here, not listed`,
    };
  }
}
