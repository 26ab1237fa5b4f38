// What a test file can change in the process that runs it and leave behind for the next file in a
// shared worker (isolate: false): the environment, the working directory, the umask. The setup
// file test/helpers/worker-state.ts takes a snapshot before each file and checks it after.

/** Set by vitest itself for each file it runs in a worker; not the tests' to keep. */
const VITEST_OWN = /^VITEST_/;

export interface ProcessState {
  env: Map<string, string>;
  cwd: string;
  umask: number;
}

export function snapshot(): ProcessState {
  const env = new Map(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !VITEST_OWN.test(e[0])));
  const umask = process.umask(0o022);
  process.umask(umask);
  return { env, cwd: process.cwd(), umask };
}

/** What differs between `before` and now, one phrase each, after putting `before` back. */
export function restore(before: ProcessState): string[] {
  const changed: string[] = [];
  for (const [key, value] of Object.entries(process.env)) {
    if (VITEST_OWN.test(key) || value === undefined) continue;
    if (!before.env.has(key)) {
      changed.push(`set ${key}`);
      delete process.env[key];
    } else if (before.env.get(key) !== value) {
      changed.push(`changed ${key}`);
      process.env[key] = before.env.get(key);
    }
  }
  for (const [key, value] of before.env) {
    if (process.env[key] === undefined) {
      changed.push(`removed ${key}`);
      process.env[key] = value;
    }
  }
  if (process.cwd() !== before.cwd) {
    changed.push(`moved to ${process.cwd()}`);
    process.chdir(before.cwd);
  }
  const umask = process.umask(before.umask);
  if (umask !== before.umask) changed.push(`set the umask to ${umask.toString(8)}`);
  return changed;
}
