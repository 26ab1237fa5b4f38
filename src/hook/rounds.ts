// Complete rounds through the turn's detectors (turn.ts) and the session's own, each written to
// the session's ledger records, with what enforce makes of the findings: the deny, the stop and
// the reminders the pending event answers with. The texts the model and the user read are here.

import { answerFailed, createRecurringFailureRoundDetector } from '../detect/tool-batch/index.js';
import type { Finding, ResumableRoundDetector } from '../detect/types.js';
import { reminderText } from '../ladder/ladder.js';
import type { LedgerEntry } from '../ledger/types.js';
import type { Round, ToolAnswer, ToolCall } from '../model/transcript.js';
import type { HookEvent } from './payload.js';
import type { DecisionRecord, GuardConfig, LedgerRecord, SessionState } from './state.js';
import { entryOf, TurnGuard } from './turn.js';

/** One call's rounds: the detectors and ladders fed, the records and the answer they make. */
export class RoundFeed {
  /** The current turn's detectors and ladders (null until a round needs them, or a new turn). */
  guard: TurnGuard | null;
  /** Created on the first round this call closes, restored from the state. */
  private recurring: ResumableRoundDetector | null = null;
  readonly records: LedgerRecord[] = [];
  deny: string | null = null;
  stop: string | null = null;
  readonly contexts: string[] = [];

  constructor(
    private readonly cfg: GuardConfig,
    private readonly state: SessionState,
    private readonly event: HookEvent,
  ) {
    this.guard = state.guard ? TurnGuard.restore(state.guard, cfg.resolved, cfg.settings) : null;
  }

  get mode(): GuardConfig['mode'] {
    return this.cfg.mode;
  }

  /** The detectors' and ladders' state into the session state, for the next call. */
  save(): void {
    this.state.guard = this.guard?.snapshot() ?? null;
    if (this.recurring) this.state.recurring = this.recurring.snapshot();
  }

  roundFrom(
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

  turnGuard(model: string | null): TurnGuard {
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

  observe(round: Round): void {
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

  decision(event: HookEvent | null, callId: string | null, action: DecisionRecord['action'], entry: LedgerEntry, refused = false): DecisionRecord {
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

/** How every refusal the guard writes begins (the agents record it as the call's answer). */
const REFUSED = 'loopledger: refused before it ran.';
export const BATCH_REFUSED = 'loopledger: this call belongs to a tool batch that was refused as a loop.';
export const TURN_ENDED = 'loopledger: this turn was ended because it was looping.';
const REFUSALS = [REFUSED, BATCH_REFUSED, TURN_ENDED];

/**
 * A transcript answer that is one of the guard's refusals, as the agent recorded it: Claude Code
 * 2.1.328 "PreToolUse:Bash hook error: <reason>", Codex 0.169.0 "Command blocked by PreToolUse
 * hook: <reason>" (fixtures/agents/). The reason stands after a short prefix of the agent's.
 */
export function refusedByUs(answer: ToolAnswer | null): boolean {
  if (answer === null || answer.content.length > 2000) return false;
  const head = answer.content.slice(0, 200);
  return REFUSALS.some((r) => {
    const at = head.indexOf(r);
    return at >= 0 && at < 80;
  });
}

/** What the model reads when its call is refused: the signal, never the repeated text. */
export function denyText(finding: Finding): string {
  const strike = finding.strike;
  const count = strike ? ` (${finding.kind}: occurrence ${strike.count}, at most ${strike.threshold} allowed${strike.ceiling !== null ? `, ceiling ${strike.ceiling}` : ''})` : ` (${finding.kind})`;
  return (
    `${REFUSED} This tool batch repeats the previous ones and they got the same answers back${count}. ` +
    'Repeating it will not change the result. State what you are trying to achieve and what is blocking it, then take a different step or give your final answer.'
  );
}

/** What the user reads when the turn is ended (never shown to the model). */
export function stopText(entry: LedgerEntry): string {
  return `loopledger (enforce): loop_detected, ${entry.detector} ${entry.kind} at turn ${entry.turn} round ${entry.round}; the turn was ended`;
}
