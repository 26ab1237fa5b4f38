// What a stop would cut (SPEC 0.3): the rounds a stop prevents are split into those still in the
// loop (saved) and those after the agent had already recovered (cut). docs/json.md defines
// "recovered"; this is that definition, one round at a time, with nothing per round kept past the
// turn.
//
// A prevented round is the recovery when it is not the loop going on (the stopped round's batch
// again, or a finding of the stop's detector and kind) and it shows something the turn had not
// seen by then: an answer (a read's text, a failure's normalised error), or a change that landed
// (a call that is no read, never made before in the turn, and did not fail). From
// the recovery on, every prevented round of the turn is cut: it is the new work a stop would break.

import { errorBody } from '../detect/tool-batch/no-progress.js';
import { answerDigest, answerFailed, batchSignature, callDigest, compileToolPatterns, noProgressReadTools, type ToolBatchConfig } from '../detect/tool-batch/index.js';
import { compileObservationPatterns, type CallClassifier, type ToolMatcher } from '../detect/tool-batch/patterns.js';
import type { Finding } from '../detect/types.js';
import type { Round, ToolAnswer, ToolCall } from '../model/transcript.js';

/**
 * Rounds before a stop whose calls and answers count as "already seen". The same number as
 * no_progress's default window, for the same reason: it holds three periods of the read/edit/edit
 * cycles of issue 28, and the detectors that stop look no further back than their own windows.
 * A call is held as its key, taken at once (the tool-batch detector has just taken it: a long one
 * is cached), never as its arguments: a tree of megabytes must not outlive its round (issue 53,
 * item 11). Answers are held by reference and hashed only if the turn stops.
 */
const RECOVERY_LOOKBACK = 12;

export type Prevented = 'saved' | 'cut';

/** A call as the cut compares it: its name, and its key unless its tool is transparent. */
interface KeyedCall {
  name: string;
  key: string | null;
}

interface HeldRound {
  calls: readonly KeyedCall[];
  answers: readonly ToolAnswer[] | null;
}

interface StopMark {
  /** The stopped round's batch signature; null when it called no tool (a text loop). */
  signature: string | null;
  detector: string;
  kind: string;
  /** Keys of every call and answer seen in the turn up to now. */
  seen: Set<string>;
  /** The round the agent recovered at, once it has. */
  recoveredAt: number | null;
}

/** Keys of a round's calls and answers: `c|` a call, `a|` an answer (a failure by its normalised text). */
function roundKeys(calls: readonly KeyedCall[], answers: readonly ToolAnswer[] | null): { calls: string[]; answers: string[]; failed: boolean[] } {
  const out = { calls: [] as string[], answers: [] as string[], failed: [] as boolean[] };
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    if (call.key === null) continue;
    out.calls.push(`c|${call.key}`);
    const answer = answers?.[i];
    // An unanswered call may have done anything, but nobody can tell: it is never news (seed 000:
    // "unknown answers never rescue a run").
    if (answers === null || answer === undefined) {
      out.answers.push('');
      out.failed.push(true);
      continue;
    }
    const failed = answerFailed(answer);
    const body = failed
      ? `e${errorBody(answer)}`
      : `o${answerDigest(answer)}`;
    out.answers.push(`a|${call.name.length}:${call.name}|${body}`);
    out.failed.push(failed);
  }
  return out;
}

/**
 * The tool patterns a RecoveryTracker reads, compiled: the lists are long (shell rules), the sessions
 * many. Its reads are no_progress's, as the configuration's one array, so the compile is shared.
 */
export function recoveryPatterns(config: ToolBatchConfig): { transparent: ToolMatcher; reads: CallClassifier } {
  return { transparent: compileToolPatterns(config.transparentTools), reads: compileObservationPatterns(noProgressReadTools(config)) };
}

/** One session's stops and their prevented rounds, turn by turn. */
export class RecoveryTracker {
  private turn: number | null = null;
  private held: HeldRound[] = [];
  private stop: StopMark | null = null;
  /**
   * `reads`: what no_progress counts as reads (a read that answers as before is nothing new,
   * whatever its arguments). Both compiled once per run (recoveryPatterns), not per session.
   */
  constructor(
    private readonly transparent: ToolMatcher,
    private readonly reads: CallClassifier,
  ) {}

  /** A round the ladder let happen (before or without a stop in its turn). */
  happened(round: Round): void {
    this.enter(round.turn);
    if (this.stop !== null) return;
    this.held.push({ calls: this.keyed(round.calls), answers: round.answers });
    if (this.held.length > RECOVERY_LOOKBACK) this.held.shift();
  }

  /** The round where Enforce stops the turn, and the finding that stopped it. */
  stopped(round: Round, finding: Pick<Finding, 'detector' | 'kind'>): void {
    this.enter(round.turn);
    const seen = new Set<string>();
    for (const h of [...this.held, { calls: this.keyed(round.calls), answers: round.answers }]) {
      const k = roundKeys(h.calls, h.answers);
      for (const c of k.calls) seen.add(c);
      for (const a of k.answers) if (a !== '') seen.add(a);
    }
    this.held = [];
    this.stop = {
      signature: round.calls.length > 0 ? batchSignature(round.calls).signature : null,
      detector: finding.detector,
      kind: finding.kind,
      seen,
      recoveredAt: null,
    };
  }

  /** A round after the stop in its turn: still in the loop (saved), or new work the stop would cut. */
  prevented(round: Round, findings: readonly Pick<Finding, 'detector' | 'kind'>[]): Prevented {
    this.enter(round.turn);
    const stop = this.stop;
    // A stop always precedes its prevented rounds; without one (a state the ledger never makes), nothing is new.
    if (stop === null) return 'saved';
    if (stop.recoveredAt !== null) return 'cut';
    const k = roundKeys(this.keyed(round.calls), round.answers);
    const inLoop =
      (stop.signature !== null && round.calls.length > 0 && batchSignature(round.calls).signature === stop.signature) ||
      findings.some((f) => f.detector === stop.detector && f.kind === stop.kind);
    let news = false;
    const calls = round.calls.filter((c) => !this.transparent(c.name));
    for (let i = 0; i < k.calls.length && !news; i++) {
      const answer = k.answers[i]!;
      if (answer === '') continue;
      if (!stop.seen.has(answer)) news = true;
      else if (!k.failed[i] && !stop.seen.has(k.calls[i]!) && !this.reads(calls[i]!).readOnly) news = true;
    }
    for (const c of k.calls) stop.seen.add(c);
    for (const a of k.answers) if (a !== '') stop.seen.add(a);
    if (inLoop || !news) return 'saved';
    stop.recoveredAt = round.index;
    return 'cut';
  }

  private keyed(calls: readonly ToolCall[]): KeyedCall[] {
    return calls.map((c) => ({ name: c.name, key: this.transparent(c.name) ? null : callDigest(c) }));
  }

  private enter(turn: number): void {
    if (this.turn === turn) return;
    this.turn = turn;
    this.held = [];
    this.stop = null;
  }
}
