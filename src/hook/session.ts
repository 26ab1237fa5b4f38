// One agent session as the hook follows it, call after call: the transcript's rounds and the
// calls the agent announces on stdin merged into one sequence of complete rounds, each fed once
// to the turn's detectors (turn.ts), and the decision for the pending event. Pure: no I/O, no
// clocks. main.ts loads the state, runs one event through here and saves the state.
//
// Sources, and which one wins:
// - The transcript is the history: turns, rounds, their text and thinking, and calls the hook
//   never saw (tools outside the matcher, calls made before the hook was installed).
// - stdin is the newest call: the transcript on disk lags behind the hook. A call the hook saw
//   keeps the identity and answer it had on stdin, so every occurrence of a loop is compared in
//   the same terms; the transcript's copy of it is recognized by call id and not counted again.
// - A parallel batch shares one response in the transcript, but the hook sees its calls one by
//   one: they are gathered into an open batch, and the batch is decided on (seed 000 `check` and
//   `record_results` together) once every answer has landed. Before a call runs, it is refused
//   only on what is known then: the whole batch when the transcript already shows it, else the
//   call as a batch of one.
// - A refused call never becomes an occurrence: the refusal is asked of a copy of the detector,
//   and the call's id is remembered so the transcript's record of it is left out.

import { createHash } from 'node:crypto';
import type { Config } from '../config/registry.js';
import type { ResolvedConfig } from '../config/resolved.js';
import { answerFailed, callDigest, createRecurringFailureRoundDetector } from '../detect/tool-batch/index.js';
import type { Finding, ResumableRoundDetector } from '../detect/types.js';
import type { LadderSettings } from '../ladder/config.js';
import { type Decision, reminderText } from '../ladder/ladder.js';
import type { PolicyResolver } from '../ladder/policy.js';
import type { LedgerEntry } from '../ledger/types.js';
import type { Mode } from '../vocabulary.js';
import type { Round, ToolAnswer, ToolCall } from '../model/transcript.js';
import type { Agent, HookCall, HookEvent } from './payload.js';
import type { Verdict } from './respond.js';
import type { TranscriptCursor, TranscriptDelta } from './transcript.js';
import { entryOf, type TurnSnapshot, TurnGuard } from './turn.js';

const STATE_VERSION = 1;

/** How many call ids, lines and aliases are remembered for de-duplication (a few turns' worth). */
const MEMORY = 512;

/** Off never installs the hook. */
export type LiveMode = Exclude<Mode, 'off'>;

export interface GuardConfig {
  mode: LiveMode;
  /** The configuration parsed once, and once per tier scale a turn needs. */
  resolved: ResolvedConfig;
  /** `resolved.config`: the untiered configuration. */
  config: Readonly<Config>;
  settings: LadderSettings;
  policy: PolicyResolver;
}

interface OpenCall {
  id: string;
  name: string;
  input: unknown;
  /** Made up by the hook (Gemini sends no call id): matched to the transcript by signature. */
  synthetic: boolean;
  /** Seen on stdin (its identity and answer are stdin's). */
  announced: boolean;
  /** `failed`: the answer opened like an error (answerFailed), for recurring_failure. */
  answer: { digest: string; isError: boolean; failed?: boolean } | null;
}

interface OpenBatch {
  calls: OpenCall[];
  /** The transcript line of the round these calls belong to, when the transcript showed it. */
  line: number | null;
  /** Seed 000 `check` was already asked for this batch before it ran. */
  checked: boolean;
}

/** Everything the hook keeps between calls for one session. Plain JSON. */
export interface SessionState {
  v: typeof STATE_VERSION;
  agent: Agent;
  session: string;
  cursor: TranscriptCursor | null;
  turn: number;
  /** Rounds closed (fed to the detectors) so far: the ledger's round numbering. */
  rounds: number;
  model: string | null;
  guard: TurnSnapshot | null;
  /** The session-scoped detectors' state (`recurring_failure`), kept across turns; absent in older files. */
  recurring?: unknown;
  open: OpenBatch | null;
  /** Calls of a batch refused before it ran: each is denied when its turn comes. */
  refused: string[];
  denied: string[];
  closedCalls: string[];
  closedLines: number[];
  /** Made-up ids of closed calls not yet recognized in the transcript, with their signatures. */
  aliases: { id: string; sig: string }[];
  /** Hash of a final answer closed from stdin before the transcript showed it. */
  closedText: string | null;
  /** A reminder the last event could not carry (Gemini's BeforeTool): the next one that can does. */
  pendingContext: string | null;
  seq: number;
  turnKey: string | null;
  turnEnded: boolean;
  /** Turns written to the ledger file (user records). */
  ledgerTurns: number;
  /** The ledger file has this state's session header. */
  ledgerStarted: boolean;
}

export function freshState(agent: Agent, session: string): SessionState {
  return {
    v: STATE_VERSION,
    agent,
    session,
    cursor: null,
    turn: 0,
    rounds: 0,
    model: null,
    guard: null,
    recurring: null,
    open: null,
    refused: [],
    denied: [],
    closedCalls: [],
    closedLines: [],
    aliases: [],
    closedText: null,
    pendingContext: null,
    seq: 0,
    turnKey: null,
    turnEnded: false,
    ledgerTurns: 0,
    ledgerStarted: false,
  };
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const count = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const text = (v: unknown): boolean => typeof v === 'string';
const textOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const listOf = (v: unknown, item: (x: unknown) => boolean): boolean => Array.isArray(v) && v.every(item);
const CURSOR_MODES: readonly string[] = ['jsonl', 'document', 'undecided', 'oversize'];

function cursorProblem(c: unknown): string | null {
  if (c === null) return null;
  if (!isRec(c)) return 'cursor is not an object';
  if (!text(c.path)) return 'cursor.path is not a string';
  for (const k of ['dev', 'ino', 'offset', 'line', 'turns', 'rounds'] as const) {
    if (!count(c[k])) return `cursor.${k} is not a count (${JSON.stringify(c[k])})`;
  }
  if (!textOrNull(c.main)) return 'cursor.main is not a string or null';
  if (!listOf(c.prelude, text)) return 'cursor.prelude is not a list of strings';
  if (!CURSOR_MODES.includes(c.mode as string)) return `cursor.mode is ${JSON.stringify(c.mode)}`;
  if (c.skip !== undefined && typeof c.skip !== 'boolean') return 'cursor.skip is not a boolean';
  return null;
}

function openProblem(o: unknown): string | null {
  if (o === null) return null;
  if (!isRec(o) || !Array.isArray(o.calls)) return 'open is not a batch';
  if (o.line !== null && !count(o.line)) return 'open.line is not a line number';
  if (typeof o.checked !== 'boolean') return 'open.checked is not a boolean';
  for (const c of o.calls as unknown[]) {
    if (!isRec(c) || !text(c.id) || !text(c.name) || typeof c.synthetic !== 'boolean' || typeof c.announced !== 'boolean') return 'open.calls holds something that is not a call';
    const a = c.answer;
    if (a !== null && !(isRec(a) && text(a.digest) && typeof a.isError === 'boolean' && (a.failed === undefined || typeof a.failed === 'boolean'))) {
      return 'open.calls holds an answer of the wrong shape';
    }
  }
  return null;
}

/**
 * What is wrong with a state file's content for this session, or null when it can be resumed.
 * Shapes and ranges only: a hand-edited or half-foreign file is started over, never half-used.
 */
export function stateProblem(raw: unknown, agent: Agent, session: string): string | null {
  if (!isRec(raw)) return 'not a JSON object';
  if (raw.v !== STATE_VERSION) return `version ${JSON.stringify(raw.v)}, not ${STATE_VERSION}`;
  if (raw.agent !== agent || raw.session !== session) return "not this session's";
  for (const k of ['turn', 'rounds', 'seq', 'ledgerTurns'] as const) {
    if (!count(raw[k])) return `${k} is not a count (${JSON.stringify(raw[k])})`;
  }
  for (const k of ['model', 'closedText', 'pendingContext', 'turnKey'] as const) {
    if (!textOrNull(raw[k])) return `${k} is not a string or null`;
  }
  for (const k of ['turnEnded', 'ledgerStarted'] as const) {
    if (typeof raw[k] !== 'boolean') return `${k} is not a boolean`;
  }
  for (const k of ['refused', 'denied', 'closedCalls'] as const) {
    if (!listOf(raw[k], text)) return `${k} is not a list of call ids`;
  }
  if (!listOf(raw.closedLines, count)) return 'closedLines is not a list of line numbers';
  if (!listOf(raw.aliases, (a) => isRec(a) && text(a.id) && text(a.sig))) return 'aliases is not a list of {id, sig}';
  const guard = raw.guard;
  if (guard !== null) {
    if (!isRec(guard) || !count(guard.turn) || !Array.isArray(guard.detectors) || !isRec(guard.enforce)) return 'guard is not a turn snapshot';
    if (typeof guard.scale !== 'number' || !Number.isFinite(guard.scale) || guard.scale <= 0) return 'guard.scale is not a positive number';
  }
  return cursorProblem(raw.cursor) ?? openProblem(raw.open);
}

/** A record for the session's ledger file (canonical JSONL plus `decision` records). */
export type LedgerRecord = Record<string, unknown> | DecisionRecord;

export interface DecisionRecord {
  type: 'decision';
  event: string;
  call_id: string | null;
  mode: LiveMode;
  /** What the hook did about it: `none` under telemetry. */
  action: 'none' | 'deny' | 'steer' | 'stop';
  /** The batch was refused before it ran: it never became a round. */
  refused?: true;
  entry: LedgerEntry;
}

function remember<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > MEMORY) list.splice(0, list.length - MEMORY);
}

function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}

function signature(name: string, input: unknown): string {
  return callDigest({ id: null, name, arguments: input });
}

export class Session {
  private guard: TurnGuard | null;
  /** Created on the first round this call closes, restored from the state. */
  private recurring: ResumableRoundDetector | null = null;
  readonly records: LedgerRecord[] = [];
  private deny: string | null = null;
  private stop: string | null = null;
  private readonly contexts: string[] = [];

  constructor(
    private readonly cfg: GuardConfig,
    readonly state: SessionState,
    /** The hook event being answered (the transcript is brought up to date first). */
    private readonly event: HookEvent,
  ) {
    this.guard = state.guard ? TurnGuard.restore(state.guard, cfg.resolved, cfg.settings) : null;
  }

  // ---- the transcript ----------------------------------------------------------------------

  applyTranscript(delta: TranscriptDelta): void {
    for (const e of delta.events) {
      if (e.type === 'turn') this.newTurn(e.turn);
      else this.released(e.round);
    }
  }

  private newTurn(turn: number): void {
    const s = this.state;
    if (turn <= s.turn) return;
    // Whatever was still open belongs to the turn that ended.
    this.closeOpen(null);
    s.turn = turn;
    s.refused = [];
    s.turnEnded = false;
    this.guard = null;
  }

  /** A round the transcript shows complete. */
  private released(round: Round): void {
    const s = this.state;
    if (round.line !== null && s.closedLines.includes(round.line)) return;
    if (round.line !== null) remember(s.closedLines, round.line);
    if (round.calls.length === 0) {
      if (s.closedText !== null && s.closedText === textHash(round.text)) {
        s.closedText = null;
        return;
      }
      this.observe(this.roundFrom(round, [], []));
      return;
    }
    const open = s.open;
    const merged: ToolCall[] = [];
    const answers: (ToolAnswer | null)[] = [];
    const taken = new Set<OpenCall>();
    let closed = false;
    round.calls.forEach((call, i) => {
      if (call.id !== null && s.denied.includes(call.id)) return;
      if ((call.id !== null && s.closedCalls.includes(call.id)) || this.takeAlias(call)) {
        closed = true;
        return;
      }
      // Calls the hook saw keep their stdin identity and answer; the transcript fills in the rest.
      const sig = signature(call.name, call.arguments);
      const mine =
        open?.calls.find((c) => !taken.has(c) && c.id === call.id) ??
        open?.calls.find((c) => !taken.has(c) && c.synthetic && signature(c.name, c.input) === sig);
      if (mine) taken.add(mine);
      merged.push(mine?.announced ? { id: mine.id, name: mine.name, arguments: mine.input } : call);
      answers.push(mine?.answer ? answerOf(mine.answer) : round.answers?.[i] ?? null);
      if (call.id !== null) remember(s.closedCalls, call.id);
      if (mine && mine.id !== call.id) remember(s.closedCalls, mine.id);
    });
    // The hook already closed this round from stdin (its text went unread: the transcript lagged).
    if (closed && merged.length === 0) return;
    if (open && taken.size > 0) {
      open.calls = open.calls.filter((c) => !taken.has(c));
      if (open.calls.length === 0) s.open = null;
    }
    this.observe(this.roundFrom(round, merged, answers));
  }

  /** Gemini: a transcript call recognized as one the hook closed under a made-up id. */
  private takeAlias(call: ToolCall): boolean {
    const aliases = this.state.aliases;
    if (aliases.length === 0) return false;
    const sig = signature(call.name, call.arguments);
    const i = aliases.findIndex((a) => a.sig === sig);
    if (i < 0) return false;
    aliases.splice(i, 1);
    if (call.id !== null) remember(this.state.closedCalls, call.id);
    return true;
  }

  // ---- stdin -------------------------------------------------------------------------------

  /** The pending event, with the transcript's round in progress (null when none or no transcript). */
  handle(tentative: Round | null, hasTranscript: boolean): Verdict {
    const s = this.state;
    const event = this.event;
    if (!hasTranscript) this.followTurnsWithoutTranscript(event);
    if (s.turn === 0) s.turn = 1;
    if (event.kind === 'pre' && event.call) this.pre(event, tentative);
    else if (event.kind === 'post' && event.call) this.post(event, tentative);
    else if (event.kind === 'stop') this.finish(event, tentative);

    if (this.stop !== null && s.turnKey === null && !hasTranscript) {
      // Nothing else will tell this turn from the next one (an agent that honours the stop
      // starts the next call in a new turn).
      s.turnEnded = true;
    }
    if (this.cfg.mode === 'enforce' && this.guard?.enforce.stopped && this.stop === null && event.kind !== 'stop') {
      // The turn was ended earlier and the agent went on (Codex cannot end a turn at PreToolUse).
      this.stop = 'loopledger (enforce): this turn was already ended for loop_detected';
      if (event.kind === 'pre' && this.deny === null) {
        this.deny = 'loopledger: this turn was ended because it was looping. Do not call more tools; give your final answer.';
        if (event.call) this.refuse(event.call.id);
      }
    }
    this.state.guard = this.guard?.snapshot() ?? null;
    if (this.recurring) this.state.recurring = this.recurring.snapshot();
    const context = [s.pendingContext, ...this.contexts].filter((c): c is string => c !== null);
    s.pendingContext = null;
    return { deny: this.deny, stop: this.stop, context: context.length > 0 ? [...new Set(context)].join('\n\n') : null };
  }

  /** No transcript: a new `turn_id`/`prompt_id`, or a call after the final answer, opens a turn. */
  private followTurnsWithoutTranscript(event: HookEvent): void {
    const s = this.state;
    const changed = event.turnKey !== null && s.turnKey !== null && event.turnKey !== s.turnKey;
    if (s.turn === 0) this.newTurn(1);
    else if (changed || (s.turnEnded && event.kind !== 'stop')) this.newTurn(s.turn + 1);
    if (event.turnKey !== null) s.turnKey = event.turnKey;
  }

  private pre(event: HookEvent, tentative: Round | null): void {
    const s = this.state;
    const call = this.identify(event.call!, tentative, false);
    if (s.denied.includes(call.id) || s.refused.includes(call.id)) {
      this.refuse(call.id);
      this.deny = 'loopledger: this call belongs to a tool batch that was refused as a loop. Do not repeat it.';
      return;
    }
    const shown = tentative !== null && tentative.calls.some((c) => c.id === call.id) ? tentative : null;
    let batch: OpenCall[] | null = null;
    if (shown) {
      // The transcript already shows the whole batch this call belongs to.
      const open = s.open;
      if (open && open.calls.some((c) => !shown.calls.some((t) => t.id === c.id))) this.closeOpen(null);
      const o: OpenBatch = s.open ?? { calls: [], line: shown.line, checked: false };
      s.open = o;
      o.line = shown.line;
      for (const t of shown.calls) {
        if (t.id === null || s.denied.includes(t.id) || s.closedCalls.includes(t.id)) continue;
        if (!o.calls.some((c) => c.id === t.id)) {
          o.calls.push({ id: t.id, name: t.name, input: t.arguments, synthetic: false, announced: false, answer: null });
        }
      }
      this.announce(o, call);
      if (!o.checked) {
        o.checked = true;
        batch = o.calls;
      }
    } else if (s.open && s.open.calls.some((c) => c.answer === null)) {
      // Calls still running: this one runs beside them (a parallel batch), decided when all land.
      this.announce(s.open, call);
    } else {
      this.closeOpen(showing(tentative, s.open));
      s.open = { calls: [], line: null, checked: true };
      this.announce(s.open, call);
      batch = s.open.calls;
    }
    if (batch === null || this.cfg.mode !== 'enforce') return;

    const model = shown?.model ?? null;
    const round = this.roundFrom(null, batch.map(toCall), null, model);
    const finding = this.turnGuard(model).wouldRefuse(round);
    if (!finding) return;
    s.refused = batch.map((c) => c.id);
    this.refuse(call.id);
    // The refusal is the round boundary's decision: under enforce a tool-batch loop is a stop.
    const enforce = this.guard!.enforce.decide([finding], { model: round.model, round: round.index });
    const telemetry: Decision = { level: 'noted', afterStop: false };
    const entry = entryOf(round, finding, telemetry, enforce[0]!);
    this.records.push(this.decision(event, call.id, 'deny', entry, true));
    this.deny = denyText(finding);
    this.stop = stopText(entry);
  }

  private post(event: HookEvent, tentative: Round | null): void {
    const s = this.state;
    const call = this.identify(event.call!, tentative, true);
    if (s.denied.includes(call.id) || s.closedCalls.includes(call.id)) return;
    let open = s.open;
    let mine = open?.calls.find((c) => c.id === call.id);
    if (!open || !mine) {
      // The hook did not see this call start (installed mid-batch, or a PreToolUse that failed).
      if (open && open.calls.every((c) => c.answer !== null)) this.closeOpen(showing(tentative, open));
      open = s.open ??= { calls: [], line: null, checked: true };
      mine = this.announce(open, call);
    }
    mine.answer = { digest: event.answer!.digest!, isError: event.answer!.isError, failed: event.answer!.failed === true };
    const shown = tentative !== null && tentative.calls.some((c) => c.id === call.id) ? tentative : null;
    const waiting = shown
      ? shown.calls.some(
          (t) => t.id !== null && !s.denied.includes(t.id) && !s.closedCalls.includes(t.id) && !open.calls.some((c) => c.id === t.id && c.answer !== null),
        )
      : open.calls.some((c) => c.answer === null);
    if (!waiting) this.closeOpen(shown);
  }

  /** The final answer: whatever is open is closed, then the answer's own round. */
  private finish(event: HookEvent, tentative: Round | null): void {
    const s = this.state;
    this.closeOpen(showing(tentative, s.open));
    const line = tentative?.line ?? null;
    const fresh = tentative !== null && (line === null || !s.closedLines.includes(line));
    const pendingCalls = fresh ? tentative!.calls.filter((c) => c.id !== null && !s.denied.includes(c.id) && !s.closedCalls.includes(c.id)) : [];
    if (fresh && pendingCalls.length === 0 && tentative!.calls.length === 0) {
      if (line !== null) remember(s.closedLines, line);
      this.observe(this.roundFrom(tentative, [], []));
    } else if (event.finalText) {
      // The transcript does not show the final answer yet: the agent's copy of it stands in.
      s.closedText = textHash(event.finalText);
      this.observe(this.roundFrom(null, [], [], null, event.finalText));
    }
    s.turnEnded = true;
  }

  /** stdin's call, with Gemini's missing id made up (or taken from the transcript's copy). */
  private identify(call: HookCall, tentative: Round | null, answering: boolean): HookCall & { synthetic: boolean } {
    if (call.id !== '') return { ...call, synthetic: false };
    const sig = signature(call.name, call.input);
    const open = this.state.open;
    // An answer goes to the first call of its signature still waiting for one.
    if (answering && open) {
      const waiting = open.calls.find((c) => c.answer === null && signature(c.name, c.input) === sig);
      if (waiting) return { ...call, id: waiting.id, synthetic: waiting.synthetic };
    }
    const taken = new Set([...(open?.calls.map((c) => c.id) ?? []), ...this.state.closedCalls, ...this.state.denied]);
    const shown = tentative?.calls.find((c) => c.id !== null && !taken.has(c.id) && signature(c.name, c.arguments) === sig);
    if (shown) return { ...call, id: shown.id!, synthetic: false };
    this.state.seq += 1;
    return { ...call, id: `~${this.state.seq}`, synthetic: true };
  }

  private announce(open: OpenBatch, call: HookCall & { synthetic?: boolean }): OpenCall {
    let mine = open.calls.find((c) => c.id === call.id);
    if (!mine) {
      mine = { id: call.id, name: call.name, input: call.input, synthetic: call.synthetic === true, announced: true, answer: null };
      open.calls.push(mine);
    } else {
      mine.name = call.name;
      mine.input = call.input;
      mine.announced = true;
    }
    return mine;
  }

  private refuse(id: string): void {
    const s = this.state;
    if (!s.denied.includes(id)) remember(s.denied, id);
    if (s.open) {
      s.open.calls = s.open.calls.filter((c) => c.id !== id);
      if (s.open.calls.length === 0) s.open = null;
    }
  }

  /** Feed the open batch as one round; `shown` is the transcript's copy (text, thinking, usage). */
  private closeOpen(shown: Round | null): void {
    const s = this.state;
    const open = s.open;
    if (!open) return;
    s.open = null;
    if (open.calls.length === 0) return;
    const source = shown !== null && (shown.line === null || !s.closedLines.includes(shown.line)) ? shown : null;
    if (source?.line != null) remember(s.closedLines, source.line);
    const answers = open.calls.every((c) => c.answer !== null) ? open.calls.map((c) => answerOf(c.answer!)) : null;
    for (const c of open.calls) {
      remember(s.closedCalls, c.id);
      if (c.synthetic) remember(s.aliases, { id: c.id, sig: signature(c.name, c.input) });
    }
    this.observe(this.roundFrom(source, open.calls.map(toCall), answers));
  }

  // ---- rounds through the detectors ----------------------------------------------------------

  private roundFrom(
    source: Round | null,
    calls: ToolCall[],
    answers: (ToolAnswer | null)[] | null,
    model: string | null = null,
    text = '',
  ): Round {
    const known = answers !== null && answers.every((a) => a !== null) ? (answers as ToolAnswer[]) : null;
    return {
      turn: Math.max(1, this.state.turn),
      index: this.state.rounds + 1,
      line: source?.line ?? null,
      text: source?.text ?? text,
      thinking: source?.thinking ?? [],
      calls,
      answers: calls.length === 0 ? [] : known,
      usage: source?.usage ?? null,
      model: source?.model ?? model ?? this.state.model,
      timestamp: source?.timestamp ?? null,
    };
  }

  private turnGuard(model: string | null): TurnGuard {
    const s = this.state;
    const turn = Math.max(1, s.turn);
    if (s.model === null && model) s.model = model;
    if (!this.guard || this.guard.turn !== turn) {
      const tier = this.cfg.policy.tierFor(model ?? s.model, this.event.subagent !== null);
      this.guard = TurnGuard.create(turn, tier.scale, this.cfg.resolved, this.cfg.settings);
    }
    return this.guard;
  }

  /** As the ledger keeps one per session (ledger/build.ts), from the untiered configuration. */
  private sessionDetector(): ResumableRoundDetector {
    if (!this.recurring) {
      this.recurring = createRecurringFailureRoundDetector(this.cfg.config.toolBatch);
      this.recurring.restore(this.state.recurring ?? null);
    }
    return this.recurring;
  }

  private observe(round: Round): void {
    const s = this.state;
    const guard = this.turnGuard(round.model);
    s.rounds += 1;
    this.writeRound(round);
    const out = guard.observe(round, this.sessionDetector());
    out.findings.forEach((finding, i) => {
      const enforce = out.enforce[i]!;
      const entry = entryOf(round, finding, out.telemetry[i]!, enforce);
      let action: DecisionRecord['action'] = 'none';
      if (this.cfg.mode === 'enforce') {
        if (enforce.level === 'stop') {
          action = 'stop';
          this.stop ??= stopText(entry);
          this.deny ??= denyText(finding);
        } else if (enforce.level === 'steer') {
          action = 'steer';
          this.contexts.push(reminderText(finding));
        }
      }
      this.records.push(this.decision(null, null, action, entry));
    });
  }

  private decision(event: HookEvent | null, callId: string | null, action: DecisionRecord['action'], entry: LedgerEntry, refused = false): DecisionRecord {
    const record: DecisionRecord = { type: 'decision', event: (event ?? this.event).name, call_id: callId, mode: this.cfg.mode, action, entry };
    if (refused) record.refused = true;
    return record;
  }

  /** The round in the canonical JSONL shape (docs/canonical-format.md), answers as digests. */
  private writeRound(round: Round): void {
    const s = this.state;
    while (s.ledgerTurns < round.turn) {
      this.records.push({ type: 'user', text: '' });
      s.ledgerTurns += 1;
    }
    const rec: LedgerRecord = { type: 'assistant', text: round.text };
    if (round.thinking.length > 0) rec.thinking = round.thinking.map((t) => (t.opaque ? { opaque: true } : { text: t.text }));
    if (round.calls.length > 0) rec.tool_calls = round.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    if (round.usage) rec.usage = { input: round.usage.inputTokens, output: round.usage.outputTokens, reasoning: round.usage.reasoningTokens };
    if (round.model) rec.model = round.model;
    if (round.line !== null) rec.line = round.line;
    this.records.push(rec);
    if (round.answers) {
      // The digest stands for the answer: identical answers stay identical, nothing is copied.
      round.answers.forEach((a, i) => {
        // A failure told by its text is flagged, so a replay of this file (whose content is the
        // digest) reads the same failures as the hook did.
        this.records.push({ type: 'tool_result', id: round.calls[i]!.id, content: a.digest ?? '', is_error: a.isError || answerFailed(a) });
      });
    }
  }
}

/** `tentative` when it is the transcript's copy of the open batch's round. */
function showing(tentative: Round | null, open: OpenBatch | null): Round | null {
  if (tentative === null || open === null) return null;
  return open.calls.some((c) => tentative.calls.some((t) => t.id === c.id)) ? tentative : null;
}

function toCall(c: OpenCall): ToolCall {
  return { id: c.id, name: c.name, arguments: c.input };
}

function answerOf(a: { digest: string; isError: boolean; failed?: boolean }): ToolAnswer {
  return { content: '', isError: a.isError, digest: a.digest, failed: a.failed === true };
}

/** What the model reads when its call is refused: the signal, never the repeated text. */
function denyText(finding: Finding): string {
  const strike = finding.strike;
  const count = strike ? ` (${finding.kind}: occurrence ${strike.count}, at most ${strike.threshold} allowed${strike.ceiling !== null ? `, ceiling ${strike.ceiling}` : ''})` : ` (${finding.kind})`;
  return (
    `loopledger: refused before it ran. This tool batch repeats the previous ones and they got the same answers back${count}. ` +
    'Repeating it will not change the result. State what you are trying to achieve and what is blocking it, then take a different step or give your final answer.'
  );
}

/** What the user reads when the turn is ended (never shown to the model). */
function stopText(entry: LedgerEntry): string {
  return `loopledger (enforce): loop_detected, ${entry.detector} ${entry.kind} at turn ${entry.turn} round ${entry.round}; the turn was ended`;
}
