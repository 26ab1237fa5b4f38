// A progress line for a person waiting at a terminal: files done of total, on stderr. SPEC: only
// when stderr is a TTY, not under CI, not with --quiet; it never reaches a pipe or a file.

import { sanitize } from '../sanitize.js';

/** What the CLI writes diagnostics to. */
export interface ErrorStream {
  write(chunk: string): boolean;
  isTTY?: boolean;
}

export interface Progress {
  /** stderr for everything else: clears the progress line first, so a diagnostic never lands on it. */
  stderr: ErrorStream;
  /** `current`: the file being read, named once the line has not moved for NAME_AFTER_MS. */
  update(done: number, total: number, current?: string): void;
  /** Take the line away (the report follows). */
  finish(): void;
}

/** At most this often, so a run of small files does not spend its time repainting. */
const REPAINT_MS = 100;
/** A line that has not moved this long names the file it is on: a large one is not a hang. */
const NAME_AFTER_MS = 2000;

/** `doing`: what the files are read for, said before the counts (`reading sessions to label: `). */
export function startProgress(stderr: ErrorStream, env: NodeJS.ProcessEnv, quiet: boolean, doing = ''): Progress | null {
  if (stderr.isTTY !== true || quiet || isCi(env)) return null;
  let shown = false;
  let last = 0;
  let counts = '';
  let current: string | undefined;
  let movedAt = Date.now();
  const named = setInterval(() => {
    if (current === undefined || Date.now() - movedAt < NAME_AFTER_MS) return;
    const name = sanitize(current.split(/[\\/]/).pop() ?? current, { max: 60 });
    stderr.write(`\r\u001b[Kloopledger: ${counts} · on ${name}`);
    shown = true;
  }, NAME_AFTER_MS / 2);
  named.unref();
  const clear = () => {
    if (!shown) return;
    stderr.write('\r\u001b[K');
    shown = false;
  };
  return {
    stderr: {
      isTTY: stderr.isTTY,
      write: (chunk: string) => {
        clear();
        return stderr.write(chunk);
      },
    },
    update(done, total, file) {
      const now = Date.now();
      if (file !== current) {
        current = file;
        movedAt = now;
      }
      if (total === 0) return;
      // Kept up to date even when not repainted: the line that names the file shows the latest count.
      counts = `${doing}${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} files (${Math.floor((done / total) * 100)}%)`;
      if (done < total && done > 0 && now - last < REPAINT_MS) return;
      last = now;
      stderr.write(`\r\u001b[Kloopledger: ${counts}`);
      shown = true;
    },
    finish: () => {
      clearInterval(named);
      clear();
    },
  };
}

/** CI services set CI (GitHub Actions, GitLab, Buildkite, CircleCI, Travis…); "false" or "0" is not CI. */
function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env['CI'];
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
