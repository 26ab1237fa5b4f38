// The live runs of the five 0.4 agents with the guard installed (issue 55 item 4), shared by
// test/agents/hook-more*.test.ts: one run of a scenario, what the guard decided in it, and what
// `analyze --format json` reads in the store the agent wrote, side by side round for round.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { analyze, type Entry, hookDecisions, LOOPLEDGER, verdictKey } from './harness.mjs';
import { record } from './record-more.mjs';

export type Agent = 'opencode' | 'kilo' | 'qwen' | 'copilot' | 'cline';
// On a machine at load 30 a hook can pass the agents' 5 s timeout and the run goes on unguarded
// (failing open, as it should): the enforce case then fails, and says so.
export const AGENTS: Agent[] = ['qwen', 'opencode', 'kilo', 'copilot', 'cline'];
export const REFUSED = /loopledger: refused before it ran\. This tool batch repeats the previous ones/;
/** The opening of every recovery reminder the guard gives (src/hook/rounds.ts). */
export const REMINDER = 'Loop detection:';

export interface LiveRun {
  result: Awaited<ReturnType<typeof record>>;
  /** The folder record() copied the agent's store to (`store/`), with its requests and log. */
  out: string;
  ledgers: string[];
}

/** One agent run with the guard installed in `mode`; `script` plays instead of the failing-call scenario. */
export async function run(agent: Agent, mode: string, options: { stateDir?: (home: string) => string; script?: (v: { modelTurns: number }) => unknown } = {}): Promise<LiveRun> {
  const out = mkdtempSync(join(tmpdir(), `loopledger-live-${agent}-`));
  let state = '';
  const result = await record(agent, out, {
    script: options.script,
    before: ({ home, work, env }) => {
      state = options.stateDir?.(home) ?? join(home, 'll-state');
      const i = spawnSync(process.execPath, [LOOPLEDGER, 'hook', 'install', agent, '--user', '--write', '--mode', mode, '--state-dir', state], { cwd: work, env, encoding: 'utf8' });
      expect(i.status, i.stderr).toBe(0);
    },
  });
  const ledgers = existsSync(state) ? readdirSync(state).filter((f) => f.endsWith('.ledger.jsonl')).map((f) => join(state, f)) : [];
  return { result, out, ledgers };
}

/** The guard's own decisions in a run: the ledger entry each carried. */
function hookEntries(r: LiveRun): Entry[] {
  return hookDecisions(r.ledgers)
    .map((d) => d.entry)
    .filter((e): e is Entry => e !== undefined);
}

/** What `analyze --format json` reads in the store the agent wrote, and how many rounds. */
function storeReading(r: LiveRun): { entries: Entry[]; rounds: number } {
  const sessions = analyze([join(r.out, 'store')]).sessions as { entries: Entry[]; rounds: number }[];
  return { entries: sessions.flatMap((s) => s.entries), rounds: sessions.reduce((n, s) => n + s.rounds, 0) };
}

/**
 * The verdicts round by round, `round N: …` for every round up to `rounds` (a round with none says
 * so), up to the turn's end: after a stop `analyze` counts on while the agent, told nothing, goes on.
 */
function byRound(entries: Entry[], rounds: number): string[] {
  const live = entries.filter((e) => !e.after_stop);
  const last = Math.max(rounds, ...live.map((e) => e.round));
  const out: string[] = [];
  for (let round = 1; round <= last; round++) {
    const keys = [...new Set(live.filter((e) => e.round === round).map(verdictKey))].sort();
    out.push(`round ${round}: ${keys.length > 0 ? keys.join(' | ') : '-'}`);
  }
  return out;
}

/** The guard's decisions and analyze's reading of the store, side by side, round for round. */
export function expectSameRounds(r: LiveRun): string[] {
  const offline = storeReading(r);
  const online = byRound(hookEntries(r), offline.rounds);
  expect(online, 'the live guard and analyze of the store agree, round for round').toEqual(byRound(offline.entries, offline.rounds));
  return online;
}

