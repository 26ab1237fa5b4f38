// Issue 26: "`loopledger stores` counts files where the ledger counts sessions (1 against 2 for
// the same file)". Now it counts sessions as the ledger does, read by the same reader: pinned by
// comparing `stores --json` with the ledger of `loopledger` (no path) over the same home.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LedgerReport } from '../../src/ledger/types.js';
import { batch, claudeCode, openai, repeat, scratch, user } from '../cli/helpers.js';
import { runCli } from '../cli/helpers.js';
import { ensureBuilt } from './helpers.js';

const tmp = scratch('loopledger-stores-count-');
const home = join(tmp.dir, 'home');
const env = { HOME: home, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined, CI: undefined };

beforeAll(() => {
  ensureBuilt();
  const events = [user('fix it'), ...repeat([['Bash', { command: 'npm test' }]], 3, 'same'), batch([['Read', { path: 'a.ts' }]])];
  const project = join(home, '.claude', 'projects', '-repo');
  mkdirSync(join(project, '0c1d2e3f-0000-4000-8000-000000000001', 'subagents'), { recursive: true });
  // One file, two sessions (the case the issue met: `stores` said 1, the ledger 2).
  writeFileSync(join(project, 'two.jsonl'), claudeCode(events, '0c1d2e3f-0000-4000-8000-00000000000a') + claudeCode(events, '0c1d2e3f-0000-4000-8000-00000000000b'));
  writeFileSync(join(project, 'one.jsonl'), claudeCode(events, '0c1d2e3f-0000-4000-8000-000000000001'));
  writeFileSync(join(project, 'empty.jsonl'), '');
  writeFileSync(join(project, 'notes.json'), '{"todo": []}');
  // The same generator makes OpenAI-shaped files; the Codex store is read whatever the format.
  mkdirSync(join(home, '.codex', 'sessions', '2026', '03', '01'), { recursive: true });
  writeFileSync(join(home, '.codex', 'sessions', '2026', '03', '01', 'rollout.jsonl'), openai(events));
});
afterAll(() => tmp.cleanup());

it('stores --json counts the sessions the ledger counts, store by store and in all', async () => {
  const stores = await runCli(['stores', '--json'], { env });
  expect(stores.code, stores.stderr).toBe(0);
  const survey = JSON.parse(stores.stdout) as { stores: { path: string; sessions: number; subagents: number; files: number }[] };
  const ledgerRun = await runCli(['--format', 'json'], { env });
  expect(ledgerRun.code, ledgerRun.stderr).toBe(0);
  const ledger = JSON.parse(ledgerRun.stdout) as LedgerReport;

  const claude = survey.stores.find((s) => s.path.endsWith(join('.claude', 'projects')))!;
  const inClaude = ledger.sessions.filter((s) => s.path.includes(`${join('.claude', 'projects')}/`)).length;
  expect(claude.sessions + claude.subagents).toBe(inClaude);
  expect(claude.sessions).toBe(3);
  expect(claude.files).toBe(4); // the empty file and notes.json too: files with a transcript's name
  expect(survey.stores.reduce((n, s) => n + s.sessions + s.subagents, 0)).toBe(ledger.summary.sessions);
  expect(ledger.inputs.find((i) => i.path.endsWith('two.jsonl'))!.sessions).toBe(2);

  const table = await runCli(['stores'], { env });
  expect(table.stdout).toContain(`loopledger with no path audits these ${ledger.summary.sessions} sessions (`);
});
