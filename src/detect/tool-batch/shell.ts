// A small shell reader for `observation_tools` rules (`Bash(cat:*)`): it splits a command line
// into the simple commands of its pipelines and lists (`|`, `&&`, `||`, `;`, newlines) and says
// whether any of them writes. It is deliberately partial: whatever it cannot read with certainty
// (command substitution, subshells, here-documents, background jobs, unknown `${…}` forms) is
// reported unparsed, and an unparsed command is never read-only.

/** One simple command: its words with quotes removed, and whether any redirection writes. */
interface SimpleCommand {
  words: string[];
  /** The first redirection that writes to a file (`> out`, `>> log`, `&> x`), null when none. */
  writes: string | null;
  /** Leading `NAME=value` words, which change what the command does. */
  assignments: number;
}

export type ParsedCommand = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };

/** Where output may go without writing anything: discarded, or to another descriptor. */
const HARMLESS_TARGET = /^(?:\/dev\/null|\/dev\/stdout|\/dev\/stderr|&[0-9]+|&-)$/;

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Past this many characters a command line is not read (and so never read-only): no command an
 * agent types to look at something is this long, and what is (a megabyte of base64 echoed to a
 * file) is not worth reading word by word. Keeps one call's cost bounded (issue 53, item 10).
 */
export const MAX_COMMAND_CHARS = 256 * 1024;

/** A run of characters that are ordinary inside a word already begun: taken in one slice. */
const WORD_RUN = /[^ \t\n\\'"`$;|&<>()]+/y;
/** The same inside double quotes, where only `"`, `\\`, `` ` `` and `$` mean something. */
const QUOTED_RUN = /[^"\\`$]+/y;

/** The end of the run of `pattern` (a sticky regular expression) starting at `from`. */
function runEnd(pattern: RegExp, text: string, from: number): number {
  pattern.lastIndex = from;
  return pattern.test(text) ? pattern.lastIndex : from;
}

/** `$NAME`, `${NAME}`, `$1`, `$?`: reads a value, runs nothing. Any other `$` form is refused. */
const PLAIN_EXPANSION = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\}|[0-9?#@*$!-])/;

/**
 * Splits `text` into simple commands. Quotes and backslashes are honoured; `$(`, backticks,
 * `<(`/`>(`, `(`/`)`/`{`/`}` as words, `<<` here-documents and a lone `&` are refused, so a
 * command hidden inside one of them is never read as harmless.
 */
export function parseCommandLine(text: string): ParsedCommand {
  if (text.length > MAX_COMMAND_CHARS) return { ok: false, reason: `a command line over ${MAX_COMMAND_CHARS / 1024} KB (not read)` };
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let writes: string | null = null;
  let word = '';
  let inWord = false;
  let pendingRedirect: string | null = null;
  let i = 0;
  const n = text.length;

  const endWord = (): string | null => {
    if (!inWord) return null;
    const w = word;
    word = '';
    inWord = false;
    if (pendingRedirect !== null) {
      if (pendingRedirect !== '<' && !HARMLESS_TARGET.test(w) && writes === null) writes = `${pendingRedirect} ${w}`;
      pendingRedirect = null;
      return null;
    }
    words.push(w);
    return w;
  };
  const endCommand = (): string | null => {
    endWord();
    if (pendingRedirect !== null) return `a redirection without a target`;
    if (words.length > 0 || writes !== null) {
      let assignments = 0;
      while (assignments < words.length && ASSIGNMENT.test(words[assignments]!)) assignments += 1;
      commands.push({ words, writes, assignments });
    }
    words = [];
    writes = null;
    return null;
  };

  while (i < n) {
    const c = text[i]!;
    if (c === '\\') {
      if (i + 1 >= n) return { ok: false, reason: 'a trailing backslash' };
      if (text[i + 1] === '\n') {
        i += 2;
        continue;
      }
      word += text[i + 1];
      inWord = true;
      i += 2;
      continue;
    }
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return { ok: false, reason: 'an unterminated quote' };
      word += text.slice(i + 1, close);
      inWord = true;
      i = close + 1;
      continue;
    }
    if (c === '"') {
      i += 1;
      inWord = true;
      let closed = false;
      while (i < n) {
        const d = text[i]!;
        if (d === '"') {
          closed = true;
          i += 1;
          break;
        }
        if (d === '\\' && i + 1 < n && '"\\$`\n'.includes(text[i + 1]!)) {
          if (text[i + 1] !== '\n') word += text[i + 1];
          i += 2;
          continue;
        }
        if (d === '`') return { ok: false, reason: 'command substitution' };
        if (d === '$') {
          const m = PLAIN_EXPANSION.exec(text.slice(i, i + 80));
          if (m === null) return { ok: false, reason: 'command substitution or an unknown expansion' };
          word += m[0];
          i += m[0].length;
          continue;
        }
        // Character by character, a long quoted string was a rope of one-character pieces.
        const end = Math.max(i + 1, runEnd(QUOTED_RUN, text, i));
        word += text.slice(i, end);
        i = end;
      }
      if (!closed) return { ok: false, reason: 'an unterminated quote' };
      continue;
    }
    if (c === '`') return { ok: false, reason: 'command substitution' };
    if (c === '$') {
      const m = PLAIN_EXPANSION.exec(text.slice(i, i + 80));
      if (m === null) return { ok: false, reason: 'command substitution or an unknown expansion' };
      word += m[0];
      inWord = true;
      i += m[0].length;
      continue;
    }
    if (c === ' ' || c === '\t') {
      endWord();
      i += 1;
      continue;
    }
    if (c === '#' && !inWord) {
      // A comment runs to the end of the line.
      while (i < n && text[i] !== '\n') i += 1;
      continue;
    }
    if (c === '\n' || c === ';') {
      const bad = endCommand();
      if (bad) return { ok: false, reason: bad };
      i += 1;
      continue;
    }
    if (c === '|') {
      const bad = endCommand();
      if (bad) return { ok: false, reason: bad };
      i += text[i + 1] === '|' || text[i + 1] === '&' ? 2 : 1;
      continue;
    }
    if (c === '&') {
      if (text[i + 1] === '&') {
        const bad = endCommand();
        if (bad) return { ok: false, reason: bad };
        i += 2;
        continue;
      }
      if (text[i + 1] === '>') {
        endWord();
        pendingRedirect = text[i + 2] === '>' ? '&>>' : '&>';
        i += pendingRedirect.length;
        continue;
      }
      return { ok: false, reason: 'a background job (&)' };
    }
    if (c === '>' || c === '<') {
      // A descriptor number written just before the operator belongs to it (`2>`), not to a word.
      let op = '';
      if (inWord && /^[0-9]+$/.test(word)) {
        op = word;
        word = '';
        inWord = false;
      } else {
        endWord();
      }
      if (c === '<') {
        if (text[i + 1] === '<') return { ok: false, reason: 'a here-document' };
        if (text[i + 1] === '(') return { ok: false, reason: 'process substitution' };
        if (text[i + 1] === '>') return { ok: false, reason: 'a read-write redirection (<>)' };
        if (text[i + 1] === '&') {
          pendingRedirect = '<';
          i += 2;
          continue;
        }
        pendingRedirect = '<';
        i += 1;
        continue;
      }
      if (text[i + 1] === '(') return { ok: false, reason: 'process substitution' };
      let len = 1;
      if (text[i + 1] === '>' || text[i + 1] === '|') len = 2;
      op += text.slice(i, i + len);
      if (text[i + len] === '&') {
        // `2>&1`, `>&2`: duplicates a descriptor; the target word is read as `&N` below.
        word = '&';
        inWord = true;
        i += len + 1;
        pendingRedirect = op;
        // The digit (or `-`) that follows is appended by the ordinary word reading.
        continue;
      }
      pendingRedirect = op;
      i += len;
      continue;
    }
    if (c === '(' || c === ')') return { ok: false, reason: 'a subshell or function' };
    if ((c === '{' || c === '}') && !inWord && (i + 1 >= n || ' \t\n;'.includes(text[i + 1]!))) {
      return { ok: false, reason: 'a command group' };
    }
    // The rest of the word's ordinary characters in one slice: appended one at a time, a 5 MB
    // word cost 10 s and 419 MB. Inside a word begun, `#`, `{` and `}` are ordinary too.
    const end = runEnd(WORD_RUN, text, i + 1);
    word += text.slice(i, end);
    inWord = true;
    i = end;
  }
  const bad = endCommand();
  if (bad) return { ok: false, reason: bad };
  return { ok: true, commands };
}

/** Options of `xargs` that take a separate value (`-n 1`, `-I {}`): skipped to find its command. */
const XARGS_VALUED = new Set(['-n', '-I', '-P', '-d', '-L', '-s', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file']);

/** `find` actions that run, delete or write (`-exec rm`, `-delete`, `-fprint out`). */
const FIND_WRITES = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

/**
 * A sed script that only prints, deletes from the output, counts or substitutes in the output:
 * addresses (`12`, `$`, `/re/`, `a,b`, `a,+n`), then `p d = q Q l n N` or `s/a/b/flags` without
 * the `w` and `e` flags. Anything else (`w file`, `e cmd`, `r`, braces) is not read as harmless.
 */
const SED_ADDRESS = String.raw`(?:[0-9]+|\$|\/(?:[^\/\\]|\\.)*\/)`;
const SED_COMMAND = String.raw`(?:[pdq=lQnN]|s(?:\/(?:[^\/\\\n]|\\.)*){2}\/[gpiI0-9]*|s(?:\|(?:[^|\\\n]|\\.)*){2}\|[gpiI0-9]*|s(?:#(?:[^#\\\n]|\\.)*){2}#[gpiI0-9]*)`;
const SED_SAFE = new RegExp(String.raw`^\s*(?:(?:${SED_ADDRESS}(?:\s*,\s*(?:${SED_ADDRESS}|\+[0-9]+))?)?\s*!?\s*${SED_COMMAND}\s*(?:;\s*|\n\s*|$))+$`);

/** Why one simple command writes (beyond its redirections), or null when it does not. */
export function commandWrites(words: readonly string[]): string | null {
  const name = words[0];
  if (name === undefined) return null;
  const base = name.slice(name.lastIndexOf('/') + 1);
  const args = words.slice(1);
  for (const a of args) if (a === '--output' || a.startsWith('--output=')) return `${base} ${a}`;
  switch (base) {
    case 'tee':
      return 'tee';
    case 'sed': {
      let scripted = false;
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!;
        if (a === '--in-place' || a.startsWith('--in-place=') || /^-[a-zA-Z]*i/.test(a)) return 'sed -i';
        if (a === '-e' || a === '--expression') {
          const script = args[i + 1];
          if (script === undefined || !SED_SAFE.test(script)) return 'a sed script that is not only printing';
          scripted = true;
          i += 1;
          continue;
        }
        if (a === '-f' || a.startsWith('--file')) return 'a sed script file';
        if (a.startsWith('-')) continue;
        if (!scripted) {
          if (!SED_SAFE.test(a)) return 'a sed script that is not only printing';
          scripted = true;
        }
      }
      return null;
    }
    case 'find':
      for (const a of args) if (FIND_WRITES.has(a)) return `find ${a}`;
      return null;
    case 'sort':
      for (const a of args) if (a === '-o' || /^-[a-zA-Z]*o/.test(a)) return 'sort -o';
      return null;
    case 'rg':
      for (const a of args) if (a === '--pre' || a.startsWith('--pre=')) return 'rg --pre';
      return null;
    case 'xargs': {
      let i = 0;
      while (i < args.length && args[i]!.startsWith('-')) i += XARGS_VALUED.has(args[i]!) ? 2 : 1;
      return args.length > i ? null : 'xargs without a command';
    }
    default:
      return null;
  }
}

/** The command `xargs` runs (its words after its options), or null when `words` is not xargs. */
export function xargsCommand(words: readonly string[]): string[] | null {
  const name = words[0];
  if (name === undefined || name.slice(name.lastIndexOf('/') + 1) !== 'xargs') return null;
  let i = 1;
  while (i < words.length && words[i]!.startsWith('-')) i += XARGS_VALUED.has(words[i]!) ? 2 : 1;
  return words.slice(i);
}

/**
 * The command line a shell tool call carries, by agent: Claude Code `Bash {command}`, Gemini
 * `run_shell_command {command}`, OpenHands `execute_bash {command}`, Codex `exec_command {cmd}`
 * and `shell {command: [argv]}` (`["bash", "-lc", script]`: the script; another argv: its words,
 * quoted back so the reader sees them as the agent's shell would not reinterpret them).
 */
export function commandOf(args: unknown): string | null {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return null;
  const o = args as Record<string, unknown>;
  const raw = o.command ?? o.cmd;
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw) && raw.length > 0 && raw.every((w) => typeof w === 'string')) {
    const argv = raw as string[];
    const shell = argv[0]!.slice(argv[0]!.lastIndexOf('/') + 1);
    if (['bash', 'sh', 'zsh', 'dash'].includes(shell) && argv.length === 3 && /^-l?c$/.test(argv[1]!)) return argv[2]!;
    return argv.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  }
  return null;
}
