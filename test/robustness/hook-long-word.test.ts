// Issue 53, item 10, as an agent meets it: a Bash call that echoes 5 MB of base64 (an agent
// writing a binary file) went through the guard in 1.4-6.9 s, past the agents' 5 s timeout, as
// the shell reader took the word a character at a time (10 s and 277 MB here, on two busy cores).

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, scratch } from './helpers.js';
import { AGENT_TIMEOUT_MS, callHook } from '../hook/process.js';

const tmp = scratch('loopledger-hook-long-word-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

describe('the guard on a command of one 5 MB word (issue 53, item 10)', () => {
  it('answers within the agents\' timeout, in bounded memory', async () => {
    const base64 = randomBytes(3.75 * 1024 * 1024).toString('base64');
    const payload = JSON.stringify({
      hook_event_name: 'PreToolUse',
      session_id: 'long-word',
      transcript_path: join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl'),
      tool_name: 'Bash',
      tool_input: { command: `echo ${base64} | base64 -d > image.png` },
      tool_use_id: 'toolu_long',
    });
    const call = await callHook(['claude-code', '--mode', 'enforce', '--state-dir', join(tmp.dir, 'state')], payload, { killAfterMs: 60_000 });
    expect([call.code, call.signal, call.stderr]).toEqual([0, null, '']);
    expect(call.wallMs).toBeLessThan(AGENT_TIMEOUT_MS);
    expect(call.maxRssKb).toBeLessThan(200 * 1024);
  });
});
