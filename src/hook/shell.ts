// The agent runs a hook's `command` through a POSIX shell (Claude Code, Gemini CLI and Codex all
// hand it to `sh -c` or the user's shell on macOS and Linux): quoting for it, and just enough
// word splitting to find the launcher and the arguments in a command someone else wrote.

/** One argument quoted for `sh`: bare when it is plainly safe, else single-quoted. */
export function shQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export interface Word {
  /** The word after quote removal (variables are left as written: `$HOME` stays `$HOME`). */
  value: string;
  start: number;
  end: number;
}

/**
 * The words of `command` up to its first unquoted operator (`;`, `|`, `&`, `<`, `>`, a
 * parenthesis, a newline): `tail` is where that operator starts (the command's length when there
 * is none), so a redirection or a second command the user wrote can be kept as it was.
 * null for a command this reading cannot follow (an unterminated quote).
 */
export function shellWords(command: string): { words: Word[]; tail: number } | null {
  const words: Word[] = [];
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (';|&<>()\n`'.includes(c)) break;
    const start = i;
    let value = '';
    while (i < command.length) {
      const ch = command[i]!;
      if (ch === ' ' || ch === '\t' || ';|&<>()\n`'.includes(ch)) break;
      if (ch === "'") {
        const close = command.indexOf("'", i + 1);
        if (close < 0) return null;
        value += command.slice(i + 1, close);
        i = close + 1;
      } else if (ch === '"') {
        let j = i + 1;
        for (; j < command.length && command[j] !== '"'; j++) {
          if (command[j] === '\\' && j + 1 < command.length && '"\\$`\n'.includes(command[j + 1]!)) j++;
          value += command[j];
        }
        if (j >= command.length) return null;
        i = j + 1;
      } else if (ch === '\\' && i + 1 < command.length) {
        value += command[i + 1];
        i += 2;
      } else {
        value += ch;
        i++;
      }
    }
    words.push({ value, start, end: i });
  }
  // `2>/dev/null`: the descriptor number belongs to the redirection, not to the arguments.
  const last = words.at(-1);
  if (last && last.end === i && /^\d+$/.test(last.value) && (command[i] === '<' || command[i] === '>')) {
    words.pop();
    return { words, tail: last.start };
  }
  return { words, tail: i };
}
