// Issue 53, item 15: the V8 code cache the launcher loads beside each bundle (bin/code-cache.js)
// only saves time. Anything in its place that is not a regular file (a directory, a FIFO) is
// passed over: the guard still runs and answers within the agent's timeout, with no stack trace
// (a directory made it exit 1 with one; a FIFO hung every start). Run in a copy of the launcher
// and the guard's bundle, so the checkout's own dist/ is never touched.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, ensureBuilt, scratch } from './helpers.js';

const AGENT_TIMEOUT_MS = 5_000;
const tmp = scratch('loopledger-code-cache-');
const install = join(tmp.dir, 'install');
const cache = join(install, 'dist', 'hook.cache');

beforeAll(() => {
  ensureBuilt();
  mkdirSync(join(install, 'bin'), { recursive: true });
  mkdirSync(join(install, 'dist'), { recursive: true });
  for (const f of ['bin/loopledger.js', 'bin/code-cache.js', 'dist/hook.cjs', 'package.json']) copyFileSync(join(ROOT, f), join(install, f));
});
afterAll(() => tmp.cleanup());

/** One PreToolUse of the guard on a calm Claude Code session, as the agent runs it. */
function guard(name: string) {
  const stateDir = join(tmp.dir, `state-${name}`);
  const payload = JSON.stringify({
    hook_event_name: 'PreToolUse',
    session_id: `cache-${name}`,
    transcript_path: join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl'),
    tool_name: 'Read',
    tool_input: { file_path: 'README.md' },
    tool_use_id: 't1',
  });
  const started = Date.now();
  const r = spawnSync(process.execPath, [join(install, 'bin', 'loopledger.js'), 'hook', 'claude-code', '--state-dir', stateDir], {
    input: payload,
    encoding: 'utf8',
    timeout: AGENT_TIMEOUT_MS * 2,
  });
  return { code: r.status, signal: r.signal, stderr: r.stderr, ms: Date.now() - started, errorsLog: existsSync(join(stateDir, 'errors.log')) };
}

describe('what stands where the code cache should be (issue 53, item 15)', () => {
  const cases: [string, () => void][] = [
    ['a regular file (the cache the build wrote)', () => copyFileSync(join(ROOT, 'dist', 'hook.cache'), cache)],
    ['a directory', () => mkdirSync(cache)],
    ['a FIFO', () => expect(spawnSync('mkfifo', [cache]).status).toBe(0)],
    ['nothing', () => {}],
  ];
  for (const [what, make] of cases) {
    it(`${what}: the guard runs as usual, within the agent's timeout`, () => {
      rmSync(cache, { recursive: true, force: true });
      make();
      const r = guard(what.split(' ')[1]!);
      expect(r.signal, `killed after ${r.ms} ms`).toBeNull();
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(r.errorsLog).toBe(false);
      expect(r.ms).toBeLessThan(AGENT_TIMEOUT_MS);
    });
  }
});
