// A progress line for a person waiting at a terminal: files done of total, on stderr. SPEC: only
// when stderr is a TTY, not under CI, not with --quiet; it never reaches a pipe or a file.

/** What the CLI writes diagnostics to. */
export interface ErrorStream {
  write(chunk: string): boolean;
  isTTY?: boolean;
}

export interface Progress {
  /** stderr for everything else: clears the progress line first, so a diagnostic never lands on it. */
  stderr: ErrorStream;
  update(done: number, total: number): void;
  /** Take the line away (the report follows). */
  finish(): void;
}

/** At most this often, so a run of small files does not spend its time repainting. */
const REPAINT_MS = 100;

export function startProgress(stderr: ErrorStream, env: NodeJS.ProcessEnv, quiet: boolean): Progress | null {
  if (stderr.isTTY !== true || quiet || isCi(env)) return null;
  let shown = false;
  let last = 0;
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
    update(done, total) {
      const now = Date.now();
      if (total === 0 || (done < total && done > 0 && now - last < REPAINT_MS)) return;
      last = now;
      stderr.write(`\r\u001b[Kloopledger: ${done}/${total} files (${Math.floor((done / total) * 100)}%)`);
      shown = true;
    },
    finish: clear,
  };
}

/** CI services set CI (GitHub Actions, GitLab, Buildkite, CircleCI, Travis…); "false" or "0" is not CI. */
function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env['CI'];
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
