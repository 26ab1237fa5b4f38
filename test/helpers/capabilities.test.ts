// The gates of test/helpers/capabilities.ts: a gated test names what it needs in its title, says
// why it was skipped, and LOOPLEDGER_REQUIRE turns the skip into a failure (issue 57, item 1).

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { gatedTitle, missing, required } from './capabilities.js';

describe('LOOPLEDGER_REQUIRE', () => {
  it('all requires every capability; a list requires those it names; agents requires each agent', () => {
    expect(required('tmux', { LOOPLEDGER_REQUIRE: 'all' })).toBe(true);
    expect(required('agent:codex', { LOOPLEDGER_REQUIRE: 'all' })).toBe(true);
    expect(required('tmux', { LOOPLEDGER_REQUIRE: 'jq, tmux' })).toBe(true);
    expect(required('chromium', { LOOPLEDGER_REQUIRE: 'jq,tmux' })).toBe(false);
    expect(required('agent:gemini', { LOOPLEDGER_REQUIRE: 'agents' })).toBe(true);
    expect(required('tmux', {})).toBe(false);
    expect(required('tmux', { LOOPLEDGER_REQUIRE: '' })).toBe(false);
  });

  it('all leaves out the public stores, which only mirrors of people\'s repositories give; naming them requires them', () => {
    expect(required('public-stores', { LOOPLEDGER_REQUIRE: 'all' })).toBe(false);
    expect(required('public-stores', { LOOPLEDGER_REQUIRE: 'all,public-stores' })).toBe(true);
  });
});

describe('titles', () => {
  it('name the capabilities, and the reason where the test did not run', () => {
    expect(gatedTitle('draws the page', ['chromium'], null)).toBe('draws the page (needs chromium)');
    expect(gatedTitle('reads as another user', ['root', 'other-user'], ['other-user', 'not root'])).toBe('reads as another user (needs root, other-user; skipped: not root)');
  });
});

describe('detection', () => {
  it('root is there exactly when the process runs as uid 0', () => {
    expect(missing('root') === null).toBe(process.getuid?.() === 0);
  });

  it('a command is found on PATH as the shell finds it', () => {
    // `sh` itself is on every PATH the suite runs with; a name no package has is not.
    expect(missing('script') === null).toBe(/\S/.test(spawnSync('sh', ['-c', 'command -v script'], { encoding: 'utf8' }).stdout));
  });

  it('a capability only its test file can find must be declared first', () => {
    expect(() => missing('duckdb')).toThrow(/declareCapability/);
  });
});
