// The open batch: the calls the agent announced on stdin that have not become a round yet, matched
// to the transcript's copies, and closed into one round once every answer landed (or the turn
// moved on). A parallel batch shares one response in the transcript, but the hook sees its calls
// one by one: they are gathered here.

import { answerDigest, callDigest } from '../detect/tool-batch/index.js';
import type { Round, ToolAnswer, ToolCall } from '../model/transcript.js';
import type { HookCall } from './payload.js';
import type { RoundFeed } from './rounds.js';
import { type OpenBatch, type OpenCall, remember, type SessionState } from './state.js';

/** A call's identity for matching (Gemini sends no call id): the reader's own call digest. */
export function signature(name: string, input: unknown): string {
  return callDigest({ id: null, name, arguments: input });
}

/** A final answer's text, digested as the reader digests an answer: one hash on both paths. */
export function textHash(text: string): string {
  return answerDigest({ content: text, isError: false });
}

/** stdin's call, with Gemini's missing id made up (or taken from the transcript's copy). */
export function identify(state: SessionState, call: HookCall, tentative: Round | null, answering: boolean): HookCall & { synthetic: boolean } {
  if (call.id !== '') return { ...call, synthetic: false };
  const sig = signature(call.name, call.input);
  const open = state.open;
  // An answer goes to the first call of its signature still waiting for one.
  if (answering && open) {
    const waiting = open.calls.find((c) => c.answer === null && signature(c.name, c.input) === sig);
    if (waiting) return { ...call, id: waiting.id, synthetic: waiting.synthetic };
  }
  const taken = new Set([...(open?.calls.map((c) => c.id) ?? []), ...state.closedCalls, ...state.denied]);
  const shown = tentative?.calls.find((c) => c.id !== null && !taken.has(c.id) && signature(c.name, c.arguments) === sig);
  if (shown) return { ...call, id: shown.id!, synthetic: false };
  state.seq += 1;
  return { ...call, id: `~${state.seq}`, synthetic: true };
}

export function announce(open: OpenBatch, call: HookCall & { synthetic?: boolean }): OpenCall {
  let mine = open.calls.find((c) => c.id === call.id);
  if (!mine) {
    mine = { id: call.id, name: call.name, input: call.input, synthetic: call.synthetic === true, announced: true, answer: null };
    open.calls.push(mine);
    grew(open);
  } else {
    // The transcript's copy of the call becomes stdin's (Codex: the model's `exec_command {cmd,
    // workdir, …}` becomes `exec_command {cmd}`): a batch checked in the transcript's terms is
    // checked again in these.
    if (!mine.announced && signature(mine.name, mine.input) !== signature(call.name, call.input)) grew(open);
    mine.name = call.name;
    mine.input = call.input;
    mine.announced = true;
  }
  return mine;
}

/**
 * A batch that grew is another batch: it is checked again before its new call runs. Not when it
 * holds a call with a made-up id (Gemini sends none): that call's answer, once it ran, could not
 * be told from a refused call's, so such a batch is decided when its answers land.
 */
export function grew(open: OpenBatch): void {
  if (open.calls.every((c) => !c.synthetic)) open.checked = false;
}

export function refuse(state: SessionState, id: string): void {
  if (!state.denied.includes(id)) remember(state.denied, id);
  if (state.open) {
    state.open.calls = state.open.calls.filter((c) => c.id !== id);
    if (state.open.calls.length === 0) state.open = null;
  }
}

/** Feed the open batch as one round; `shown` is the transcript's copy (text, thinking, usage). */
export function closeOpen(state: SessionState, feed: RoundFeed, shown: Round | null): void {
  const open = state.open;
  if (!open) return;
  state.open = null;
  if (open.calls.length === 0) return;
  const source = shown !== null && (shown.line === null || !state.closedLines.includes(shown.line)) ? shown : null;
  if (source?.line != null) remember(state.closedLines, source.line);
  const answers = open.calls.every((c) => c.answer !== null) ? open.calls.map((c) => answerOf(c.answer!)) : null;
  for (const c of open.calls) {
    remember(state.closedCalls, c.id);
    if (c.synthetic) remember(state.aliases, { id: c.id, sig: signature(c.name, c.input) });
  }
  feed.observe(feed.roundFrom(source, open.calls.map(toCall), answers, null, open.text));
}

/** `tentative` when it is the transcript's copy of the open batch's round. */
export function showing(tentative: Round | null, open: OpenBatch | null): Round | null {
  if (tentative === null || open === null) return null;
  return open.calls.some((c) => tentative.calls.some((t) => t.id === c.id)) ? tentative : null;
}

export function toCall(c: OpenCall): ToolCall {
  return { id: c.id, name: c.name, arguments: c.input };
}

export function answerOf(a: { digest: string; isError: boolean; failed?: boolean }): ToolAnswer {
  return { content: '', isError: a.isError, digest: a.digest, failed: a.failed === true };
}
