// The transcript's side of a session: turns it opened and rounds it shows complete since the last
// call, reconciled with what stdin already closed. A call the hook saw keeps its stdin identity and
// answer; the transcript's copy of it is recognised (by call id, or by signature for Gemini's
// made-up ids) and not counted again; a refusal of ours in it is never an occurrence.

import type { Round, ToolAnswer, ToolCall } from '../model/transcript.js';
import { answerOf, closeOpen, signature, textHash } from './batch.js';
import { type RoundFeed, refusedByUs } from './rounds.js';
import { type OpenCall, remember, type SessionState } from './state.js';
import type { TranscriptDelta } from './transcript.js';

export function applyTranscript(state: SessionState, feed: RoundFeed, delta: TranscriptDelta): void {
  for (const e of delta.events) {
    if (e.type === 'turn') newTurn(state, feed, e.turn);
    else released(state, feed, e.round);
  }
}

export function newTurn(state: SessionState, feed: RoundFeed, turn: number): void {
  if (turn <= state.turn) return;
  // Whatever was still open belongs to the turn that ended.
  closeOpen(state, feed, null);
  state.turn = turn;
  state.refused = [];
  state.turnEnded = false;
  feed.guard = null;
}

/** A round the transcript shows complete. */
function released(state: SessionState, feed: RoundFeed, round: Round): void {
  if (round.line !== null && state.closedLines.includes(round.line)) return;
  if (round.line !== null) remember(state.closedLines, round.line);
  if (round.calls.length === 0) {
    if (state.closedText !== null && state.closedText === textHash(round.text)) {
      state.closedText = null;
      return;
    }
    feed.observe(feed.roundFrom(round, [], []));
    return;
  }
  const open = state.open;
  const merged: ToolCall[] = [];
  const answers: (ToolAnswer | null)[] = [];
  const taken = new Set<OpenCall>();
  let closed = false;
  round.calls.forEach((call, i) => {
    if (call.id !== null && state.denied.includes(call.id)) return;
    if (refusedByUs(round.answers?.[i] ?? null)) {
      // Our own refusal, which a state started over no longer remembers: still no occurrence,
      // and the turn it ended stays ended (a refusal is always a stop: see pre()).
      if (call.id !== null) remember(state.denied, call.id);
      if (feed.mode === 'enforce') feed.turnGuard(round.model).markEnded();
      return;
    }
    if ((call.id !== null && state.closedCalls.includes(call.id)) || takeAlias(state, call)) {
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
    if (call.id !== null) remember(state.closedCalls, call.id);
    if (mine && mine.id !== call.id) remember(state.closedCalls, mine.id);
  });
  // The hook already closed this round from stdin (its text went unread: the transcript lagged).
  if (closed && merged.length === 0) return;
  if (open && taken.size > 0) {
    open.calls = open.calls.filter((c) => !taken.has(c));
    if (open.calls.length === 0) state.open = null;
  }
  feed.observe(feed.roundFrom(round, merged, answers));
}

/** Gemini: a transcript call recognized as one the hook closed under a made-up id. */
function takeAlias(state: SessionState, call: ToolCall): boolean {
  const aliases = state.aliases;
  if (aliases.length === 0) return false;
  const sig = signature(call.name, call.arguments);
  const i = aliases.findIndex((a) => a.sig === sig);
  if (i < 0) return false;
  aliases.splice(i, 1);
  if (call.id !== null) remember(state.closedCalls, call.id);
  return true;
}
