// The task folders of Cline's VS Code extension, Roo Code and Kilo Code (SPEC 0.4 `vscode-tasks`):
// `tasks/<task id>/api_conversation_history.json`, one JSON array of the messages sent to the
// model. Assistant messages carry `tool_use` blocks (and `modelInfo`, `metrics.tokens`, `ts` where
// the extension keeps them); the extension answers them in the next user message, either as
// `tool_result` blocks or as text blocks headed `[<tool> for '<what>'] Result:` (Cline), in the
// order the calls were made. Modelled on two tasks committed to public repositories (see
// docs/formats.md "vscode-tasks").

import { basename, dirname } from 'node:path';
import type { SessionBuilder } from '../model/builder.js';
import type { ToolAnswer } from '../model/transcript.js';
import { contentText } from './shared/messages.js';
import { asNumber, asString, fileStem, isRec, type Rec } from './shared/text.js';
import { usageWithCache } from './shared/usage.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

const TASK_FILE = 'api_conversation_history.json';

export const vscodeTasksAdapter: FormatAdapter = {
  name: 'vscode-tasks',
  description: `Cline (VS Code), Roo Code and Kilo Code task folders (globalStorage/<extension>/tasks/<id>/${TASK_FILE}): tool_use blocks answered by "[tool] Result:" text or tool_result blocks`,
  detection: `a JSON array of {role, content blocks} named ${TASK_FILE}, or whose messages carry the extensions' modelInfo/metrics or <environment_details>`,
  detect: detectVscodeTasks,
  open: (ctx) => new VscodeTaskParser(ctx),
};

function detectVscodeTasks(probe: Probe): number {
  // The extensions write the array on one line: probed as lines, it is the one record.
  const doc = probe.mode === 'document' ? probe.value : probe.records.length === 1 ? probe.records[0] : undefined;
  if (!Array.isArray(doc) || doc.length === 0) return 0;
  const messages: Rec[] = [];
  for (const m of doc as unknown[]) {
    if (!isRec(m) || (m.role !== 'user' && m.role !== 'assistant') || !(Array.isArray(m.content) || typeof m.content === 'string')) return 0;
    messages.push(m);
  }
  if (probe.fileName === TASK_FILE) return 1;
  // Anthropic's own log takes the same messages at 0.9: only the extensions' marks outbid it.
  return messages.some((m) => isRec(m.modelInfo) || isRec(m.metrics) || userTexts(m).some((t) => t.startsWith('<environment_details>'))) ? 0.95 : 0;
}

/** `[read_file for 'src/a.ts'] Result:` (the description may run over lines), `[attempt_completion] Result:`. */
const RESULT_HEADER = /^\[([\w.:-]+)(?: for '[\s\S]*?')?\] Result:[ \t]*\n?/;

/** The extensions' own words for a call that did not work (their prompts' response templates). */
const FAILED_ANSWER = [
  /^The tool execution failed with the following error:/,
  /^Command failed with exit code [1-9]/, // Cline's execute_command
  /Exit code: (?:[1-9]|-)/, // Roo Code's execute_command: "… within working directory '…'. Exit code: 1"
  /^The user denied this operation/,
];

/** The working folder the extension tells the model of: `# Current Working Directory (/repo) Files` (Cline), `# Current Workspace Directory (…)` (Roo Code). */
const WORKING_DIR = /^# Current (?:Working|Workspace) Directory \((.+?)\) Files$/m;

class VscodeTaskParser implements RecordParser {
  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!Array.isArray(value)) {
      this.ctx.skip(line, `not a task's ${TASK_FILE} (an array of messages)`);
      return;
    }
    const messages = value.filter(isRec);
    const project = projectOf(messages);
    const sb = this.ctx.builder.session(taskIdOf(this.ctx.path), project ? { project } : {});
    let pending: { id: string; name: string }[] = [];
    for (const m of messages) {
      if (m.role === 'assistant') pending = readAssistant(sb, m, line);
      else if (m.role === 'user') readUser(sb, m, pending, line);
    }
  }

  end(): void {}
}

/** The task's id is its folder's name (the epoch milliseconds it began); a copy elsewhere is its file's name. */
function taskIdOf(path: string): string {
  return basename(path) === TASK_FILE ? basename(dirname(path)) : fileStem(path);
}

function projectOf(messages: Rec[]): string | null {
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const t of userTexts(m)) {
      const found = WORKING_DIR.exec(t);
      if (found) return found[1]!;
    }
  }
  return null;
}

function userTexts(m: Rec): string[] {
  if (typeof m.content === 'string') return [m.content];
  if (!Array.isArray(m.content)) return [];
  return m.content.filter((b): b is Rec => isRec(b) && b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
}

/** One model response: its text, thinking, calls and usage. Returns the calls, to be answered next. */
function readAssistant(sb: SessionBuilder, m: Rec, line: number | null): { id: string; name: string }[] {
  const info = isRec(m.modelInfo) ? m.modelInfo : {};
  const ts = asNumber(m.ts);
  sb.round({ line, model: asString(info.modelId), timestamp: ts !== null ? new Date(ts).toISOString() : null });
  const calls: { id: string; name: string }[] = [];
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content.filter(isRec) : [];
  for (const b of blocks) {
    if (b.type === 'text' && typeof b.text === 'string') sb.text(b.text);
    else if (b.type === 'thinking' && typeof b.thinking === 'string') sb.thinking({ text: b.thinking, opaque: false });
    else if (b.type === 'reasoning' && typeof b.text === 'string') sb.thinking({ text: b.text, opaque: false });
    else if (b.type === 'redacted_thinking') sb.thinking({ text: null, opaque: true });
    else if (b.type === 'tool_use') {
      const id = asString(b.id) ?? `${calls.length}`;
      const name = asString(b.name) ?? 'unknown';
      sb.call({ id, name, arguments: b.input ?? null });
      calls.push({ id, name });
    }
  }
  const tokens = isRec(m.metrics) && isRec(m.metrics.tokens) ? m.metrics.tokens : null;
  // Cline counts the prompt without its cached part (Anthropic's habit): `cached` is added back.
  if (tokens) sb.usage(usageWithCache(asNumber(tokens.prompt), asNumber(tokens.completion), null, asNumber(tokens.cached) ?? 0, 0));
  return calls;
}

/**
 * The extension's message after a response: answers to its calls (matched by id, or by tool name
 * and order for Cline's text headers), or the user's own words. A message of answers is no user
 * turn unless the user wrote in it (`<feedback>` on a completion); Cline's `[ERROR]` re-prompt
 * never is. A `[TASK RESUMPTION]` opens a turn: it is written on every reopening, finished
 * task or not, so it is no evidence of an interrupt.
 */
function readUser(sb: SessionBuilder, m: Rec, pending: { id: string; name: string }[], line: number | null): void {
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content.filter(isRec) : [];
  const unanswered = [...pending];
  let answers = 0;
  let feedback = false;
  for (const b of blocks) {
    if (b.type === 'tool_result') {
      answers += 1;
      const text = contentText(b.content);
      sb.answer(asString(b.tool_use_id), answerFrom(text, b.is_error === true));
      continue;
    }
    if (b.type !== 'text' || typeof b.text !== 'string') continue;
    const header = RESULT_HEADER.exec(b.text);
    if (header) {
      answers += 1;
      const at = Math.max(0, unanswered.findIndex((c) => c.name === header[1] || c.name.endsWith(`_${header[1]}`)));
      const call = unanswered.splice(at, 1)[0];
      // A header with no call left to answer (the response made none) is the extension's word, not an answer.
      if (call) sb.answer(call.id, answerFrom(b.text.slice(header[0].length), false));
    } else if (b.text.startsWith('<feedback>')) {
      feedback = true;
    }
  }
  const first = blocks.find((b) => b.type === 'text' && typeof b.text === 'string')?.text as string | undefined;
  if (answers > 0 && !feedback) return;
  if (first?.startsWith('[ERROR]')) return;
  sb.userTurn(line);
}

function answerFrom(text: string, flagged: boolean): ToolAnswer {
  return { content: text, isError: flagged || FAILED_ANSWER.some((re) => re.test(text)) };
}
