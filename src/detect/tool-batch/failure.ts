// Whether a tool answer reports a failure. Most formats flag errors (`is_error`, a non-zero exit
// code, Gemini's `status: error`); Chat Completions tool messages cannot, so an agent harness
// writes the failure into the text (`Error: payment declined`, a JSON `{"error": …}` body).

import type { ToolAnswer, ToolCall } from '../../model/transcript.js';
import { commandOf } from './shell.js';

/**
 * How much of the answer's start is read. A failure announces itself in its first words; reading
 * no further keeps a megabyte of successful output from costing anything.
 */
const HEAD_CHARS = 160;

/**
 * Openings that say the call failed, at the very start of the answer only (a success that mentions
 * an error further in is not one): `Error: …`, `error[E0308]: …`, `Exception in thread …`,
 * `Traceback (most recent call last):`, `fatal: …`, `Failed to …`, `FAILED tests/…`, `{"error": …}`
 * (not `null`, `false` or empty). The word must end there
 * (space, `:`, `[`, `(`): `Errors: 0` and a file listing opening with `error.log` do not match.
 */
const FAILURE_OPENING = /^(?:(?:error|exception|fatal|failed|failure)(?=[\s:[(]|$)|traceback \(most recent call last\)|\{\s*"error"\s*:(?!\s*(?:null\b|false\b|""|\})))/i;

/**
 * Gemini CLI's shell tool reports a failed command as a success whose text ends with the exit
 * code ("Output: …\nExit Code: 1"), in the transcript and in the hook's payload alike: a
 * non-zero code in the answer's last lines is a failure.
 */
const NONZERO_EXIT = /(?:^|\n)Exit Code: [1-9]\d*\s*(?:\n|$)/;

/**
 * A refusal of the call (Claude Code's permission prompt and permission mode, Codex's approval):
 * the call did not run. Codex writes it as plain output with no error flag.
 */
const REFUSAL = /^(?:permission for this tool use was denied|the user doesn'?t want to (?:proceed|take this action)|exec command rejected by user|tool execution denied by policy|claude requested permissions? to)/i;

/** Whether the answer refuses the call (a permission prompt, a policy, the user) rather than report its failure. */
export function answerRefused(answer: ToolAnswer): boolean {
  // Where the reading thread dropped the text, its head is what is left of it.
  return REFUSAL.test(openingOf(answer.head ?? answer.content).replace(/^<tool_use_error>\s*/i, ''));
}

/** The first HEAD_CHARS of an answer, from its first printed character: where a failure or a refusal says so. */
function openingOf(text: string): string {
  return (text.length > HEAD_CHARS ? text.slice(0, HEAD_CHARS) : text).trimStart();
}

export function answerFailed(answer: ToolAnswer): boolean {
  if (answer.isError || answer.failed === true) return true;
  const text = answer.content;
  const opening = openingOf(text);
  if (FAILURE_OPENING.test(opening) || REFUSAL.test(opening)) return true;
  const tail = text.length > HEAD_CHARS ? text.slice(-HEAD_CHARS) : text;
  return tail.includes('Exit Code: ') && NONZERO_EXIT.test(tail);
}

/**
 * A failure that says nothing but its exit status: what a search that matched nothing prints
 * (normalised: Codex's "Exit code: 1 Wall time: <duration> Output:" with no output included).
 */
const STATUS_ONLY = /^(?:error:?\s*)?(?:output:\s*\(empty\)\s*)?(?:exit(?:ed)?(?: with)?(?: status| code)?:?\s*\d+)?\.?(?:\s*wall time:\s*\S+)?(?:\s*output:)?$/i;

/** Tools and shell commands whose exit 1 with no output means "nothing matched". */
const SEARCH_TOOLS = /(?:^|[_.:/-])(?:grep|glob|search_file_content|find|search)$/i;
const SEARCH_COMMAND = /^\s*(?:(?:cd|set-location)\s+[^;&|]+(?:&&|;)\s*)?(?:rg|grep|egrep|fgrep|find|fd|ag|ack|git\s+grep|ls|test|\[|findstr|select-string)\b/i;
/** A pipeline whose last stage filters (`git branch | rg -n …`): its exit 1 is that filter's "no line matched". */
const SEARCH_LAST_STAGE = /(?:^|[^|])\|\s*(?:rg|grep|egrep|fgrep|ag|ack)\b[^|]*$/;

/** A search that found nothing: exit 1 (or a bare error flag) with no message. */
export function foundNothing(call: ToolCall, error: string): boolean {
  if (!STATUS_ONLY.test(error)) return false;
  if (SEARCH_TOOLS.test(call.name)) return true;
  const command = scriptOf(call.arguments);
  return command !== null && (SEARCH_COMMAND.test(command) || SEARCH_LAST_STAGE.test(command));
}

/**
 * The script a Windows shell runs (Codex's `["pwsh.exe", "-NoLogo", "-Command", script]`,
 * `["cmd.exe", "/c", script]`): the search inside is what answered, not the wrapper.
 */
const WINDOWS_SHELL = /^(?:pwsh|powershell|cmd)(?:\.exe)?$/i;
const SCRIPT_FLAG = /^(?:-c|-command|\/c)$/i;

function scriptOf(args: unknown): string | null {
  const argv = (args as { command?: unknown } | null)?.command;
  if (Array.isArray(argv) && argv.length >= 3 && argv.every((w) => typeof w === 'string')) {
    const words = argv as string[];
    const shell = words[0]!.slice(Math.max(words[0]!.lastIndexOf('/'), words[0]!.lastIndexOf('\\')) + 1);
    if (WINDOWS_SHELL.test(shell) && SCRIPT_FLAG.test(words[words.length - 2]!)) return words[words.length - 1]!;
  }
  return commandOf(args);
}
