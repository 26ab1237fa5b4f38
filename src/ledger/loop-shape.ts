// The shape of a loop: what one finding looped on, normalised so that the same loop in many
// sessions reads the same and unrelated loops do not (SPEC 0.3 "Loop shapes": names and argument
// shape, not values). `summary.loop_shapes` adds findings up by it (loop-shapes.ts).
//
// A tool-batch finding's shape is its batch: each distinct call's shape, sorted, joined by ` + `.
// A call's shape is its tool name, plus, for a tool whose arguments pick what it does, the words
// that pick it: the program (and sub-command) of a shell command, `Bash {command: "cd app && npm
// test -- --run x.test.ts"}` → `Bash(npm test)`; the `command` or `action` word of a multi-action
// tool, `str_replace_editor {command: "view", path}` → `str_replace_editor(view)`. Nothing else of
// the arguments counts: their key set changes with optional arguments inside one loop's family
// (Read with or without `offset`, Grep with or without `output_mode`), so keys would split one
// loop into several rows, while everything that tells unrelated loops of one tool apart is in
// the tool's name or its sub-command. A text finding (output, thinking) has no call: its shape is
// its kind.

import type { Finding } from '../detect/types.js';
import { MAX_CYCLE_PERIOD } from '../detect/tool-batch/config.js';
import type { ToolCall } from '../model/transcript.js';
import { isRecord } from '../is-record.js';

/** A word kept in a shape: what a program, sub-command or action name looks like, never free text. */
const WORD = /^[A-Za-z0-9_][A-Za-z0-9._+:-]{0,31}$/;
/** A sub-command: lower-case, no dots or slashes (so a file name or path is never one). */
const SUBCOMMAND = /^[a-z][a-z0-9_:-]{0,23}$/;
/** A tool name longer than this is cut: a shape is a label, and a name is not free to be megabytes. */
const MAX_NAME = 64;
/** How much of a command is read: its start says what it runs, and a heredoc may follow for pages. */
const MAX_COMMAND_CHARS = 1024;
/** Words of one command read: enough for `A=1 B=2 sudo -E timeout 60 npm run build`. */
const MAX_WORDS = 10;
/** Commands of one script kept in a shape; more is written `…`. */
const MAX_COMMANDS = 3;

/** Programs whose first argument is a sub-command that says what they do (`git status`, `cargo test`). */
const SUBCOMMAND_PROGRAMS = new Set([
  'apt', 'apt-get', 'aws', 'az', 'brew', 'bun', 'bundle', 'cargo', 'composer', 'conda', 'dart', 'deno',
  'docker', 'dotnet', 'flutter', 'gcloud', 'gh', 'git', 'go', 'gradle', 'gradlew', 'helm', 'just', 'kubectl',
  'make', 'mix', 'mvn', 'npm', 'nx', 'pip', 'pip3', 'pipenv', 'pnpm', 'podman', 'poetry', 'rails', 'rake',
  'rustup', 'swift', 'systemctl', 'terraform', 'turbo', 'uv', 'yarn',
]);
/** Runners whose next word is the program they run (`npx vitest`). */
const RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx']);
/** Sub-commands whose next word is the script or program they run (`npm run build`, `pnpm exec tsc`). */
const SCRIPT_SUBCOMMANDS = new Set(['run', 'run-script', 'exec', 'x']);
/** Interpreters whose `-m` names the program (`python -m pytest`). */
const MODULE_RUNNERS = new Set(['python', 'python3', 'py']);
/** Words before the program that do not change what runs. */
const PREFIXES = new Set(['sudo', 'time', 'nohup', 'env', 'command', 'exec', 'nice', 'stdbuf']);
/** Setting up rather than doing: left out so `cd a && npm test` and `npm test` are one loop. */
const SETUP = new Set(['cd', 'pushd', 'popd', 'export', 'set', 'source', '.', 'true', 'unset', 'ulimit']);
/** argv[0] of a shell given its script with `-c` (Codex `["bash", "-lc", "…"]`). */
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'fish', 'ksh']);

/** Keys whose value picks what a tool does: a shell command, or a multi-action tool's action. */
const COMMAND_KEYS = ['command', 'cmd'] as const;
const ACTION_KEYS = ['action', 'subcommand', 'operation'] as const;

/** A tool name as a shape writes it: cut when very long, quoted when it could be read as shape
 *  syntax (` + ` between calls, `(…)` for the words, ` > ` in a cycle), so two sets of tools
 *  never write the same shape. */
function nameShape(name: string): string {
  const chars = [...name];
  const cut = chars.length <= MAX_NAME ? name : chars.slice(0, MAX_NAME - 1).join('') + '…';
  return /^[^\s"()+>]+$/.test(cut) ? cut : JSON.stringify(cut);
}

const basename = (word: string) => word.slice(word.lastIndexOf('/') + 1);

/**
 * A script split into its simple commands, each a list of words, quote-aware (a `;` or `|` inside
 * quotes splits nothing). Only the head of a pipeline is kept: `npm test | tail` runs `npm test`.
 * A heredoc ends the reading: its body is data, not commands.
 */
function commandsOf(script: string): string[][] {
  const text = script.slice(0, MAX_COMMAND_CHARS);
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let piped = false;
  let quote: '"' | "'" | null = null;
  // The next word is a redirection's target (`> out.log`, `2>&1`): not an argument.
  let target = false;
  // Words past the first few of a command are never read (commandWords): their characters are
  // not gathered, so a long command costs a scan, not a copy.
  let gather = true;
  const endWord = () => {
    if (inWord && !piped && !target) words.push(word);
    if (inWord) target = false;
    word = '';
    inWord = false;
    gather = !piped && words.length < MAX_WORDS;
  };
  const endCommand = (pipe: boolean) => {
    endWord();
    target = false;
    if (!piped && words.length > 0) commands.push(words);
    words = [];
    piped = pipe ? piped || commands.length > 0 : false;
    gather = !piped;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') {
        if (gather) word += text[i + 1] ?? '';
        i++;
      } else if (gather) word += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (gather) word += text[i + 1] ?? '';
      i++;
      inWord = true;
    } else if ((c === '$' && text[i + 1] === '(') || c === '`') {
      // A command substitution stays inside its word: `$(which python)` is one (unreadable) word.
      const close = c === '`' ? '`' : ')';
      const start = i;
      let depth = 0;
      for (; i < text.length; i++) {
        const d = text[i]!;
        if (gather) word += d;
        if (close === ')' && d === '(') depth++;
        else if (d === close && (close === '`' ? i > start : --depth === 0)) break;
      }
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '<' && text[i + 1] === '<' && text[i + 2] !== '<') {
      break;
    } else if (c === '>' || c === '<' || (c === '&' && text[i + 1] === '>')) {
      // A redirection: `2>&1`, `&> log`, `>> out`, `< in`. A file descriptor number before it goes too.
      if (inWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      } else endWord();
      while (i + 1 < text.length && '<>&|'.includes(text[i + 1]!)) i++;
      target = true;
    } else if (c === '\n' || c === ';' || c === '&' || c === '(' || c === ')') {
      // `&&`, `&` and `;` end a command alike; a subshell's parentheses just group.
      endCommand(false);
    } else if (c === '|') {
      if (text[i + 1] === '|') {
        i++;
        endCommand(false);
      } else endCommand(true);
    } else if (c === '#' && !inWord) {
      // A comment runs to the end of its line.
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else {
      if (gather) word += c;
      inWord = true;
    }
  }
  endCommand(false);
  return commands;
}

/** What one simple command runs, in one to three words, or null when it only sets up. */
function commandWords(words: readonly string[]): string | null {
  let i = 0;
  // `A=1 B=2 cmd`, `sudo -E cmd`, `timeout 60 cmd`: the program comes after these.
  for (;;) {
    const w = words[i];
    if (w === undefined) return null;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++;
    else if (PREFIXES.has(w)) {
      i++;
      while (words[i]?.startsWith('-')) i++;
    } else if (w === 'timeout') {
      i++;
      while (words[i]?.startsWith('-')) i++;
      i++;
    } else break;
  }
  const program = basename(words[i]!);
  if (SETUP.has(program)) return null;
  if (!WORD.test(program)) return '?';
  const next = words[i + 1];
  if (MODULE_RUNNERS.has(program) && next === '-m' && words[i + 2] !== undefined && WORD.test(words[i + 2]!)) {
    return `${program} -m ${words[i + 2]}`;
  }
  if (RUNNERS.has(program) && next !== undefined && WORD.test(basename(next)) && !next.startsWith('-')) return `${program} ${basename(next)}`;
  if (!SUBCOMMAND_PROGRAMS.has(program) || next === undefined || !SUBCOMMAND.test(next)) return program;
  // `npm run build`, `pnpm exec tsc`: the runner's script is what it does.
  const third = words[i + 2];
  if (SCRIPT_SUBCOMMANDS.has(next) && third !== undefined && SUBCOMMAND.test(third)) return `${program} ${next} ${third}`;
  return `${program} ${next}`;
}

/** A shell script as the programs it runs: `cd x && npm test | tail` → `npm test`. */
export function scriptShape(script: string): string {
  const parts: string[] = [];
  for (const words of commandsOf(script)) {
    const w = commandWords(words);
    if (w === null || parts[parts.length - 1] === w) continue;
    parts.push(w);
  }
  if (parts.length === 0) return '';
  return parts.length > MAX_COMMANDS ? `${parts.slice(0, MAX_COMMANDS).join(' && ')} && …` : parts.join(' && ');
}

/** argv as one script: a shell's `-c` script itself, otherwise the words in order. */
export function argvScript(argv: readonly unknown[]): string | null {
  if (!argv.every((a) => typeof a === 'string')) return null;
  const words = argv as readonly string[];
  if (words.length >= 3 && SHELLS.has(basename(words[0]!)) && /^-[a-z]*c$/.test(words[1]!)) return words[2]!;
  return words.map((w) => (/[\s;&|<>'"\\#()]/.test(w) || w === '' ? `'${w.replace(/'/g, '')}'` : w)).join(' ');
}

/** Where a call's picking words come from: a script still to read, or the words themselves. */
type Source = { script: string } | { words: string } | null;

/** The argument that picks what a call does (a few property reads: no parsing yet). */
function sourceOf(args: unknown): Source {
  // Arguments kept as a raw string (SWE-agent's command line, JSON that did not parse) name nothing
  // beyond the tool: the formats already make the command word the tool's name where there is one.
  if (!isRecord(args)) return null;
  for (const key of COMMAND_KEYS) {
    const v = args[key];
    if (typeof v === 'string') return { script: v };
    if (Array.isArray(v)) {
      const script = argvScript(v);
      if (script !== null) return { script };
    }
  }
  for (const key of ACTION_KEYS) {
    const v = args[key];
    if (typeof v === 'string' && WORD.test(v)) return { words: v };
  }
  return null;
}

const wordsOf = (source: Source): string => (source === null ? '' : 'words' in source ? source.words : scriptShape(source.script));

/** A call reduced to its name and source: what its shape is made of. */
interface Reduced {
  name: string;
  source: Source;
}

const reduce = (call: Pick<ToolCall, 'name' | 'arguments'>): Reduced => ({ name: call.name, source: sourceOf(call.arguments) });

function reducedShape(call: Reduced): string {
  const name = nameShape(call.name);
  const words = wordsOf(call.source);
  return words === '' ? name : `${name}(${words})`;
}

/** One call's shape: `Read`, `Bash(npm test)`, `str_replace_editor(view)`. */
export function callShape(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  return reducedShape(reduce(call));
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A batch's shape: its distinct call shapes, sorted (a batch is a set, as seed 000's signature is). */
export function batchShape(calls: readonly Pick<ToolCall, 'name' | 'arguments'>[]): string {
  return reducedBatchShape(calls.map(reduce));
}

function reducedBatchShape(calls: readonly Reduced[]): string {
  const shapes = [...new Set(calls.map(reducedShape))].sort(byCodePoint);
  return shapes.length === 0 ? '(no calls)' : shapes.join(' + ');
}

/** Batches kept for a cycle's shape: the cycle tracker's longest period, with room for skipped batches. */
const RECENT_BATCHES = 2 * MAX_CYCLE_PERIOD;

/**
 * The last batches of a turn's rounds, newest last, so that a cycle's shape can be written with
 * each batch's own shape (`Bash(git stash) > Bash(npm test)`) rather than its tool names alone.
 * A round costs a few property reads here: a batch is kept reduced (names, and the command or
 * action string), read only when a cycle is found; a long command is read at once so that no
 * large argument outlives its round. The builder resets it at each turn.
 */
export class RecentBatches {
  private batches: Reduced[][] = [];
  push(calls: readonly Pick<ToolCall, 'name' | 'arguments'>[]): void {
    if (calls.length === 0) return;
    this.batches.push(
      calls.map((call) => {
        const r = reduce(call);
        if (r.source !== null && 'script' in r.source && r.source.script.length > MAX_COMMAND_CHARS) r.source = { words: scriptShape(r.source.script) };
        return r;
      }),
    );
    if (this.batches.length > RECENT_BATCHES) this.batches.shift();
  }
  reset(): void {
    this.batches = [];
  }
  /**
   * The shapes of the batches the cycle's evidence names (`tools`: `A+B>C`, oldest first), matched
   * newest first; a batch whose tools differ was one the tracker did not count (only transparent
   * tools) and is passed over. null when they cannot all be found.
   */
  match(tools: readonly string[][]): string[] | null {
    const out: string[] = [];
    let j = this.batches.length - 1;
    for (let i = tools.length - 1; i >= 0; i--) {
      const want = tools[i]!.join('\u0000');
      while (j >= 0 && namesOf(this.batches[j]!) !== want) j--;
      if (j < 0) return null;
      out.unshift(reducedBatchShape(this.batches[j--]!));
    }
    return out;
  }
}

const namesOf = (calls: readonly Pick<ToolCall, 'name'>[]) => [...new Set(calls.map((c) => c.name))].sort(byCodePoint).join('\u0000');

/**
 * A cycle `A > B > A > B` as its period, rotated to start at its least batch so that a cycle
 * entered at another point is the same cycle. Each batch is its shape when the recent batches
 * show it, else the tool names the evidence records.
 */
function cycleShape(tools: string, recent: RecentBatches | null): string {
  const names = tools.split('>').map((b) => [...new Set(b.split('+'))].sort(byCodePoint));
  const found = recent?.match(names) ?? null;
  const batches = found ?? names.map((b) => b.map(nameShape).join(' + '));
  // Batches the tracker told apart by their values may read alike here (`git stash`, `git stash
  // pop`): a period that repeats a shorter one is written once.
  const d = shortestPeriod(batches);
  const unit = batches.slice(0, d);
  let best = unit;
  for (let r = 1; r < unit.length; r++) {
    const rotated = [...unit.slice(r), ...unit.slice(0, r)];
    if (rotated.join('\u0000') < best.join('\u0000')) best = rotated;
  }
  return best.join(' > ');
}

function shortestPeriod(xs: readonly string[]): number {
  for (let d = 1; d < xs.length; d++) {
    if (xs.length % d === 0 && xs.every((x, i) => x === xs[i % d])) return d;
  }
  return xs.length;
}

/** The shape of a finding made on `calls` (its round's batch). */
export function findingShape(
  finding: Pick<Finding, 'detector' | 'kind' | 'evidence'>,
  calls: readonly Pick<ToolCall, 'name' | 'arguments'>[],
  recent: RecentBatches | null = null,
): string {
  if (finding.detector !== 'tool_batch') return finding.kind;
  const tools = finding.evidence['tools'];
  // The evidence lists the cycle's one period, its last `period` batches.
  if (finding.kind === 'tool_cycle' && typeof tools === 'string' && tools !== '') return cycleShape(tools, recent);
  if (finding.kind === 'recurring_failure' && typeof tools === 'string') {
    // The failing tool's own calls in this round: the other calls of the batch did not fail.
    const own = calls.filter((c) => c.name === tools);
    return own.length > 0 ? batchShape(own) : nameShape(tools);
  }
  return batchShape(calls);
}
