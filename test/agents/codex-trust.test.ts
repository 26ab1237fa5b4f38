// `hook install codex` marks the guard's handlers reviewed in Codex's config.toml, with Codex's
// own fingerprint (src/hook/codex-trust.ts). The hashes pinned here are the `currentHash` that
// Codex 0.169.0 itself reported (`codex app-server`, method hooks/list) for the handlers
// `hook install codex --user --write --mode enforce` wrote; the codex agent suite checks the same
// against the live Codex whenever it is installed.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trustCodexHooks } from '../../src/hook/codex-trust.js';
import { runCli } from '../cli/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'loopledger-codex-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COMMAND = 'loopledger hook codex --mode enforce';
const handler = { type: 'command', command: COMMAND, timeout: 5 };
const SETTINGS = {
  hooks: {
    PreToolUse: [{ hooks: [handler] }],
    PostToolUse: [{ hooks: [{ type: 'command', command: '/usr/bin/their-own-hook' }, handler] }],
    Stop: [{ hooks: [handler] }],
  },
};
const ours = (h: unknown) => (h as { command?: string }).command === COMMAND;

describe('trustCodexHooks', () => {
  it("writes Codex's fingerprint of each guard handler under its key, and nothing for the user's own", () => {
    const config = join(dir, 'a', 'config.toml');
    const line = trustCodexHooks('/home/u/.codex/hooks.json', SETTINGS, config, ours);
    expect(line).toBe(`loopledger: ${config}: marked the 3 loopledger hooks reviewed for Codex`);
    expect(readFileSync(config, 'utf8')).toBe(
      [
        '[hooks.state."/home/u/.codex/hooks.json:pre_tool_use:0:0"]',
        'trusted_hash = "sha256:f62130b0015a62879655492bec161041f068f5950167d8c215dbb1fcdd6deb38"',
        '',
        '[hooks.state."/home/u/.codex/hooks.json:post_tool_use:0:1"]',
        'trusted_hash = "sha256:35bceb34a4b1308f085c48915e9d34b154d5df1b651deb898d4d86b6c715546b"',
        '',
        '[hooks.state."/home/u/.codex/hooks.json:stop:0:0"]',
        'trusted_hash = "sha256:f1015bb07ad81aca3cbebd3fa0373b77a39bdac6e3a0ab22c655e0ee71bb126b"',
        '',
      ].join('\n'),
    );
  });

  it('updates its tables in place on a second install and keeps the rest of config.toml', () => {
    const config = join(dir, 'b.toml');
    const before = 'model = "gpt-5"\n\n[hooks.state."/home/u/.codex/hooks.json:pre_tool_use:0:0"]\nenabled = true\ntrusted_hash = "sha256:old"\n\n[projects."/repo"]\ntrust_level = "trusted"\n';
    writeFileSync(config, before);
    trustCodexHooks('/home/u/.codex/hooks.json', { hooks: { PreToolUse: SETTINGS.hooks.PreToolUse } }, config, ours);
    trustCodexHooks('/home/u/.codex/hooks.json', { hooks: { PreToolUse: SETTINGS.hooks.PreToolUse } }, config, ours);
    expect(readFileSync(config, 'utf8')).toBe(
      before.replace('sha256:old', 'sha256:f62130b0015a62879655492bec161041f068f5950167d8c215dbb1fcdd6deb38'),
    );
  });

  it('a handler shape it cannot fingerprint is left for the user to review, saying how', () => {
    const config = join(dir, 'c', 'config.toml');
    const odd = { hooks: { PreToolUse: [{ hooks: [{ ...handler, statusMessage: 'checking' }] }] } };
    expect(trustCodexHooks('/h/hooks.json', odd, config, ours)).toBe(
      'loopledger: Codex runs only reviewed hooks: run `codex`, open /hooks and trust the loopledger hooks (until then `codex exec` skips them silently)',
    );
  });
});

describe('hook install codex --user --write', () => {
  it("marks what it wrote reviewed in $CODEX_HOME/config.toml, keyed by the hooks.json it wrote", async () => {
    const home = join(dir, 'home');
    const r = await runCli(['hook', 'install', 'codex', '--user', '--write', '--mode', 'enforce'], { env: { HOME: home, CODEX_HOME: join(home, '.codex') } });
    expect(r.code).toBe(0);
    const hooksPath = join(home, '.codex', 'hooks.json');
    expect(r.stderr).toContain(`loopledger: ${join(home, '.codex', 'config.toml')}: marked the 3 loopledger hooks reviewed for Codex`);
    const toml = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
    for (const event of ['pre_tool_use', 'post_tool_use', 'stop']) {
      expect(toml).toContain(`[hooks.state.${JSON.stringify(`${hooksPath}:${event}:0:0`)}]\ntrusted_hash = "sha256:`);
    }
  });
});
