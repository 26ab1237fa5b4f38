// The guard run in this process (src/hook/main.ts), for tests of its semantics: same code path
// as the binary from argv to stdout, without a Node start per call.

import { runHook as run } from '../../src/hook/main.js';
import type { HookRun } from './agents.js';

export async function inProcess(args: readonly string[], stdin: string): Promise<HookRun> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: { HOME: '/nonexistent-home' },
    readStdin: () => stdin,
  });
  return { code, stdout, stderr };
}
