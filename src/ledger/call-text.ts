// What a tool-batch finding repeated, as the user typed it but short (issue 56 item 2: "the tool
// batch's row names what was repeated (tool and a short, sanitized argument, e.g. `Bash(ls -la
// …/src)`)"). The loop shape (loop-shape.ts) keeps only the program and sub-command so that loops
// group across sessions; this keeps the literal argument a reader recognises, cut short.
//
// Only an argument that says what a call acts on is shown: a shell command, a path, a pattern, a
// URL or a query. A file's content, an edit's text or a prompt never is: those are the looped text
// that only `--excerpts` may show. The text is raw here (the JSON is lossless); every human format
// sanitizes it.

import type { Finding } from '../detect/types.js';
import type { ToolCall } from '../model/transcript.js';
import { isRecord } from '../is-record.js';
import { argvScript } from './loop-shape.js';

/** Keys whose value is a command line. */
const COMMAND_KEYS = ['command', 'cmd'];
/** Keys whose value names what a call reads or acts on, in order of preference. */
const TARGET_KEYS = ['file_path', 'path', 'notebook_path', 'filename', 'file', 'pattern', 'url', 'query', 'action', 'subcommand', 'operation'];
/** An argument is cut to this many characters: a label, not the command. */
const MAX_ARGUMENT = 40;
/** A tool name longer than this is cut. */
const MAX_NAME = 32;
/** A path word longer than this keeps only its last part (`/home/alex/src/app/src` → `…/src`). */
const LONG_PATH = 16;
/** Characters of an argument read at all: the start of a megabyte heredoc is enough. */
const MAX_READ = 512;

const cut = (text: string, max: number): string => {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
};

/** A word made only of a path's characters (a sed script or a URL with a query is left whole). */
const PATH = /^[\w.~@+=,-]*(?:\/[\w.~@+=,-]*)+$/;

/** A long path word as its last part: `…/src` (a trailing slash kept). */
function shortPath(word: string): string {
  if (!PATH.test(word) || [...word].length <= LONG_PATH) return word;
  const trailing = word.endsWith('/');
  const parts = word.split('/').filter((p) => p !== '');
  const last = parts.at(-1);
  return last === undefined ? word : `…/${last}${trailing ? '/' : ''}`;
}

/** The argument's first line, blanks folded, long paths shortened, cut to MAX_ARGUMENT. */
function shortArgument(text: string): string {
  const line = (text.slice(0, MAX_READ).split(/\r?\n/, 1)[0] ?? '').trim();
  const words = line.split(/\s+/).filter((w) => w !== '');
  return cut(words.map(shortPath).join(' '), MAX_ARGUMENT);
}

/** The argument that says what a call acts on, or null. */
function argumentOf(args: unknown): string | null {
  if (typeof args === 'string') return args;
  if (!isRecord(args)) return null;
  for (const key of COMMAND_KEYS) {
    const v = args[key];
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) {
      const script = argvScript(v);
      if (script !== null) return script;
    }
  }
  for (const key of TARGET_KEYS) {
    const v = args[key];
    if (typeof v === 'string') return v;
  }
  return null;
}

/** One call as a reader would name it: `Bash(ls -la …/src)`, or its tool alone. */
function callText(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const name = cut(call.name, MAX_NAME);
  const argument = argumentOf(call.arguments);
  const short = argument === null ? '' : shortArgument(argument);
  return short === '' ? name : `${name}(${short})`;
}

/** Calls of one batch named; more are counted (`+ 2 more`). */
const MAX_CALLS = 3;
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The repeated batch of a tool-batch finding: its distinct calls in the shape's order, joined by
 * ` + ` (`Bash(npx vitest run) + Read(…/totals.ts)`), the rest counted. A cycle and a window
 * without progress repeat no one batch: undefined, as for text findings.
 */
export function findingCallText(finding: Pick<Finding, 'detector' | 'kind' | 'evidence'>, calls: readonly Pick<ToolCall, 'name' | 'arguments'>[]): string | undefined {
  if (finding.detector !== 'tool_batch' || finding.kind === 'tool_cycle' || finding.kind === 'no_progress') return undefined;
  const tools = finding.evidence['tools'];
  // A recurring failure is the failing tool's own calls; the rest of the batch did not fail.
  const own = finding.kind === 'recurring_failure' && typeof tools === 'string' ? calls.filter((c) => c.name === tools) : calls;
  const texts = [...new Set(own.map(callText))].sort(byCodePoint);
  if (texts.length === 0) return undefined;
  const shown = texts.slice(0, MAX_CALLS).join(' + ');
  return texts.length > MAX_CALLS ? `${shown} + ${texts.length - MAX_CALLS} more` : shown;
}
