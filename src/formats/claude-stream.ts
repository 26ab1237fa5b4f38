// The two other shapes Claude Code writes, read by the claude-code adapter:
//  - `claude -p --output-format stream-json --verbose`: JSONL (or the same records in a JSON array).
//    A `system`/`init` line (session_id, model, tools), `assistant` and `user` lines shaped like the
//    session file's but with snake-case `session_id` and `parent_tool_use_id` (non-null on a
//    sub-agent's traffic), and a last `result` line with the run's own cost figure.
//  - the web export `{"loglines": [...]}`: one document whose loglines are user/assistant records.
// Everything here is about telling these apart and reading their envelope; the messages themselves
// are read by the same code as the session files.

import { asNumber, isRec, type Rec } from './shared/text.js';

/** Claude Code's camelCase session-file keys; stream-json lines have snake-case `session_id` instead. */
function isSessionFileRecord(r: Rec): boolean {
  return 'sessionId' in r || 'parentUuid' in r;
}

/** A stream-json record: the init line, or a user/assistant line carrying `session_id`. */
export function isStreamRecord(r: unknown): boolean {
  if (!isRec(r) || isSessionFileRecord(r)) return false;
  if (r.type === 'system') return r.subtype === 'init' && typeof r.session_id === 'string';
  if (r.type === 'result') return 'total_cost_usd' in r || 'num_turns' in r || typeof r.session_id === 'string';
  return (r.type === 'assistant' || r.type === 'user') && isRec(r.message) && typeof r.session_id === 'string';
}

/** A user/assistant record of any Claude Code shape (what the loglines of an export hold). */
function isMessageRecord(r: unknown): boolean {
  return isRec(r) && (r.type === 'user' || r.type === 'assistant') && isRec(r.message);
}

/** How sure a list of records is stream-json: the init line is unmistakable; message lines nearly so. */
export function streamScore(records: readonly unknown[]): number {
  let stream = 0;
  for (const r of records.slice(0, 50)) {
    if (!isStreamRecord(r)) continue;
    if (isRec(r) && r.type === 'system') return 0.97;
    stream += 1;
  }
  return stream > 0 ? 0.95 : 0;
}

/** A whole document: a stream-json array, or a `{"loglines": [...]}` export. */
export function documentScore(value: unknown): number {
  if (Array.isArray(value)) return streamScore(value);
  if (isRec(value) && Array.isArray(value.loglines)) {
    const sample = value.loglines.slice(0, 50);
    if (sample.length === 0) return Object.keys(value)[0] === 'loglines' ? 0.6 : 0;
    return sample.some(isMessageRecord) ? 0.95 : 0;
  }
  return 0;
}

/** The run's cost as Claude Code itself computed it, from the `result` line (null when absent). */
export function resultCost(r: Rec): number | null {
  const usd = asNumber(r.total_cost_usd) ?? asNumber(r.cost_usd);
  return usd !== null && usd >= 0 ? usd : null;
}
