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
//   call as a batch of one, and the batch again each time a call joins it (docs/hook.md, "Batches").
// - A refused call never becomes an occurrence: the refusal is asked of a copy of the detector,
//   and the call's id is remembered so the transcript's record of it is left out.
//
// This file is stdin's side: the pending event and the verdict. The rest is split by what it does:
// state.ts (what is kept between calls), merge.ts (the transcript's side), batch.ts (the open
// batch), rounds.ts (rounds through the detectors, and the texts the model and the user read).
import type { Decision } from '../ladder/ladder.js';
import type { Round } from '../model/transcript.js';
import { announce, closeOpen, grew, identify, refuse, showing, textHash, toCall } from './batch.js';
import { applyTranscript, newTurn } from './reconcile.js';
import type { HookEvent } from './payload.js';
import type { Verdict } from './respond.js';
import { BATCH_REFUSED, denyText, RoundFeed, stopText, TURN_ENDED } from './rounds.js';
import { type GuardConfig, type LedgerRecord, type OpenBatch, type OpenCall, remember, type SessionState } from './state.js';
import type { TranscriptDelta } from './transcript.js';
import { entryOf } from './turn.js';

export class Session {
  private readonly feed: RoundFeed;

  constructor(
    private readonly cfg: GuardConfig,
    readonly state: SessionState,
    /** The hook event being answered (the transcript is brought up to date first). */
    private readonly event: HookEvent,
  ) {
    this.feed = new RoundFeed(cfg, state, event);
  }

  /** What this call appends to the session's ledger file. */
  get records(): readonly LedgerRecord[] {
    return this.feed.records;
  }

  /** The rounds and turns the transcript gained since the last call, before the pending event. */
  applyTranscript(delta: TranscriptDelta): void {
    applyTranscript(this.state, this.feed, delta);
  }

  /** The pending event, with the transcript's round in progress (null when none or no transcript). */
  handle(tentative: Round | null, hasTranscript: boolean): Verdict {
    const s = this.state;
    const event = this.event;
    if (!hasTranscript) this.followTurnsWithoutTranscript(event);
    if (s.turn === 0) s.turn = 1;
    if (event.kind === 'pre' && event.call) this.pre(event, tentative);
    else if (event.kind === 'post' && event.call) this.post(event, tentative);
    else if (event.kind === 'stop') this.finish(event, tentative);

    if (this.feed.stop !== null && s.turnKey === null && !hasTranscript) {
      // Nothing else will tell this turn from the next one (an agent that honours the stop
      // starts the next call in a new turn).
      s.turnEnded = true;
    }
    if (this.cfg.mode === 'enforce' && this.feed.guard?.enforce.stopped && this.feed.stop === null && event.kind !== 'stop') {
      // The turn was ended earlier and the agent went on (Codex cannot end a turn at PreToolUse).
      this.feed.stop = 'loopledger (enforce): this turn was already ended for loop_detected';
      if (event.kind === 'pre' && this.feed.deny === null) {
        this.feed.deny = `${TURN_ENDED} Do not call more tools; give your final answer.`;
        if (event.call) refuse(this.state, event.call.id);
      }
    }
    this.feed.save();
    const context = [s.pendingContext, ...this.feed.contexts].filter((c): c is string => c !== null);
    s.pendingContext = null;
    return { deny: this.feed.deny, stop: this.feed.stop, context: context.length > 0 ? [...new Set(context)].join('\n\n') : null };
  }

  /** No transcript: a new `turn_id`/`prompt_id`, or a call after the final answer, opens a turn. */
  private followTurnsWithoutTranscript(event: HookEvent): void {
    const s = this.state;
    const changed = event.turnKey !== null && s.turnKey !== null && event.turnKey !== s.turnKey;
    if (s.turn === 0) newTurn(this.state, this.feed, 1);
    else if (changed || (s.turnEnded && event.kind !== 'stop')) newTurn(this.state, this.feed, s.turn + 1);
    if (event.turnKey !== null) s.turnKey = event.turnKey;
  }

  private pre(event: HookEvent, tentative: Round | null): void {
    const s = this.state;
    const call = identify(this.state, event.call!, tentative, false);
    if (s.denied.includes(call.id) || s.refused.includes(call.id)) {
      refuse(this.state, call.id);
      this.feed.deny = `${BATCH_REFUSED} Do not repeat it.`;
      return;
    }
    const shown = tentative !== null && tentative.calls.some((c) => c.id === call.id) ? tentative : null;
    let batch: OpenCall[] | null = null;
    if (shown) {
      // The transcript already shows the whole batch this call belongs to.
      const open = s.open;
      if (open && open.calls.some((c) => !shown.calls.some((t) => t.id === c.id))) closeOpen(this.state, this.feed, null);
      const o: OpenBatch = s.open ?? { calls: [], line: shown.line, checked: false };
      s.open = o;
      o.line = shown.line;
      for (const t of shown.calls) {
        if (t.id === null || s.denied.includes(t.id) || s.closedCalls.includes(t.id)) continue;
        if (!o.calls.some((c) => c.id === t.id)) {
          o.calls.push({ id: t.id, name: t.name, input: t.arguments, synthetic: false, announced: false, answer: null });
          grew(o);
        }
      }
      announce(o, call);
      if (!o.checked) {
        o.checked = true;
        batch = o.calls;
      }
    } else if (s.open && s.open.calls.some((c) => c.answer === null)) {
      // Calls still running: this one runs beside them (a parallel batch). The batch as it stands
      // now is checked again (its first call was checked alone, the transcript behind), and it is
      // counted when all its answers land.
      const o = s.open;
      announce(o, call);
      if (!o.checked) {
        o.checked = true;
        batch = o.calls;
      }
    } else {
      closeOpen(this.state, this.feed, showing(tentative, s.open));
      s.open = { calls: [], line: null, checked: true, ...(event.text ? { text: event.text } : {}) };
      announce(s.open, call);
      batch = s.open.calls;
    }
    if (batch === null || this.cfg.mode !== 'enforce') return;

    const model = shown?.model ?? null;
    const round = this.feed.roundFrom(null, batch.map(toCall), null, model);
    const finding = this.feed.turnGuard(model).wouldRefuse(round);
    if (!finding) return;
    s.refused = batch.map((c) => c.id);
    // Calls of the batch already running (it was not known whole when they started) are refused
    // with it: their answers are no occurrence, as the batch never becomes a round.
    for (const c of batch) if (c.announced) refuse(this.state, c.id);
    refuse(this.state, call.id);
    // The refusal is the round boundary's decision: under enforce a tool-batch loop is a stop.
    const enforce = this.feed.guard!.enforce.decide([finding], { model: round.model, round: round.index });
    const telemetry: Decision = { level: 'noted', afterStop: false };
    const entry = entryOf(round, finding, telemetry, enforce[0]!);
    this.feed.records.push(this.feed.decision(event, call.id, 'deny', entry, true));
    this.feed.deny = denyText(finding);
    this.feed.stop = stopText(entry);
  }

  private post(event: HookEvent, tentative: Round | null): void {
    const s = this.state;
    const call = identify(this.state, event.call!, tentative, true);
    if (s.denied.includes(call.id) || s.closedCalls.includes(call.id)) return;
    let open = s.open;
    let mine = open?.calls.find((c) => c.id === call.id);
    if (!open || !mine) {
      // The hook did not see this call start (installed mid-batch, or a PreToolUse that failed).
      if (open && open.calls.every((c) => c.answer !== null)) closeOpen(this.state, this.feed, showing(tentative, open));
      open = s.open ??= { calls: [], line: null, checked: true };
      mine = announce(open, call);
    }
    mine.answer = { digest: event.answer!.digest!, isError: event.answer!.isError, failed: event.answer!.failed === true };
    const shown = tentative !== null && tentative.calls.some((c) => c.id === call.id) ? tentative : null;
    const waiting = shown
      ? shown.calls.some(
          (t) => t.id !== null && !s.denied.includes(t.id) && !s.closedCalls.includes(t.id) && !open.calls.some((c) => c.id === t.id && c.answer !== null),
        )
      : open.calls.some((c) => c.answer === null);
    if (!waiting) closeOpen(this.state, this.feed, shown ?? responseBeingWritten(tentative, open));
  }

  /** The final answer: whatever is open is closed, then the answer's own round. */
  private finish(event: HookEvent, tentative: Round | null): void {
    const s = this.state;
    closeOpen(this.state, this.feed, showing(tentative, s.open));
    const line = tentative?.line ?? null;
    const fresh = tentative !== null && (line === null || !s.closedLines.includes(line));
    const pendingCalls = fresh ? tentative!.calls.filter((c) => c.id !== null && !s.denied.includes(c.id) && !s.closedCalls.includes(c.id)) : [];
    if (fresh && pendingCalls.length === 0 && tentative!.calls.length === 0) {
      if (line !== null) remember(s.closedLines, line);
      this.feed.observe(this.feed.roundFrom(tentative, [], []));
    } else if (event.finalText) {
      // The transcript does not show the final answer yet: the agent's copy of it stands in.
      s.closedText = textHash(event.finalText);
      this.feed.observe(this.feed.roundFrom(null, [], [], null, event.finalText));
    }
    s.turnEnded = true;
  }
}

/**
 * Gemini CLI 0.61.0 writes a response's text (with its thinking and usage) before its calls run and
 * adds the calls to that message only after their AfterTool hooks: the round in progress then shows
 * no call at all. It is the open batch's round when the batch's calls have made-up ids (only
 * Gemini's, which carries none) and the response has something of its own, so the round is closed
 * with its text, as `analyze` reads it, and an output loop can be steered at this AfterTool.
 */
function responseBeingWritten(tentative: Round | null, open: OpenBatch): Round | null {
  if (tentative === null || tentative.calls.length > 0) return null;
  if (!open.calls.every((c) => c.synthetic)) return null;
  return tentative.text !== '' || tentative.thinking.length > 0 ? tentative : null;
}
