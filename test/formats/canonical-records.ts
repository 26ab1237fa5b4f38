// Test helper: a session as canonical records, to check that any adapter's output reads back the
// same through the canonical adapter (docs/canonical-format.md).

import { CANONICAL_SCHEMA } from '../../src/formats/canonical.js';
import type { Rec } from '../../src/formats/shared/messages.js';
import type { Round, SessionInfo } from '../../src/model/transcript.js';

/**
 * One session as canonical records (header first), from what an adapter delivered: its info,
 * the number of turns it announced and its rounds. User text is not part of the model, so user
 * records carry an empty text; reading the records back gives the same turns and rounds.
 */
export function toCanonicalRecords(info: SessionInfo, turns: number, rounds: readonly Round[]): Rec[] {
  const out: Rec[] = [{ type: 'session', schema: CANONICAL_SCHEMA, id: info.id, parent: info.parent }];
  let turn = 0;
  const openTurnsUpTo = (n: number) => {
    while (turn < n) {
      out.push({ type: 'user', text: '' });
      turn += 1;
    }
  };
  for (const r of rounds) {
    openTurnsUpTo(r.turn);
    const rec: Rec = { type: 'assistant', text: r.text };
    if (r.thinking.length > 0) rec.thinking = r.thinking.map((t) => (t.opaque ? { opaque: true } : { text: t.text }));
    if (r.calls.length > 0) rec.tool_calls = r.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
    if (r.usage) {
      const u: Rec = { input: r.usage.inputTokens, output: r.usage.outputTokens, reasoning: r.usage.reasoningTokens };
      if (r.usage.cacheReadTokens !== undefined) u.cache_read = r.usage.cacheReadTokens;
      if (r.usage.cacheWriteTokens !== undefined) u.cache_write = r.usage.cacheWriteTokens;
      if (r.usage.cacheWrite1hTokens !== undefined) u.cache_write_1h = r.usage.cacheWrite1hTokens;
      rec.usage = u;
    }
    if (r.model) rec.model = r.model;
    if (r.timestamp) rec.timestamp = r.timestamp;
    out.push(rec);
    if (r.answers) {
      r.answers.forEach((a, i) => {
        out.push({ type: 'tool_result', id: r.calls[i]!.id, content: a.content, is_error: a.isError });
      });
    }
  }
  openTurnsUpTo(turns);
  return out;
}
