// One turn, two callers (issue 31, item 1): every transcript under fixtures/ played through the
// ledger (LedgerBuilder, as `analyze` runs it) and through the hook's own round loop (RoundFeed of
// hook/rounds.ts, as `loopledger hook` runs it: a new feed for every round, the session's state
// saved to JSON and brought back between them) gives the same entries, round for round.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfigValues, parseConfig } from '../../src/config/registry.js';
import { ResolvedConfig } from '../../src/config/resolved.js';
import { ingestFile } from '../../src/formats/ingest.js';
import type { HookEvent } from '../../src/hook/payload.js';
import { RoundFeed } from '../../src/hook/rounds.js';
import { type DecisionRecord, freshState, type GuardConfig, type SessionState } from '../../src/hook/state.js';
import { ladderSettings } from '../../src/ladder/config.js';
import { PolicyResolver } from '../../src/ladder/policy.js';
import { LedgerBuilder } from '../../src/ledger/build.js';
import { createDetectorFactories } from '../../src/ledger/detectors.js';
import type { LedgerEntry } from '../../src/ledger/types.js';
import type { Round, SessionInfo, TranscriptSink } from '../../src/model/transcript.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures', import.meta.url));

function transcripts(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? transcripts(p) : [p];
    });
}

interface Recorded {
  info: SessionInfo;
  rounds: Round[];
}

/** What a file delivers, kept so both callers see exactly the same rounds. */
class Recorder implements TranscriptSink {
  readonly sessions: Recorded[] = [];
  private readonly byId = new Map<string, Recorded>();
  session(info: SessionInfo): void {
    const r = { info, rounds: [] };
    this.sessions.push(r);
    this.byId.set(info.id, r);
  }
  turn(): void {}
  round(sessionId: string, round: Round): void {
    this.byId.get(sessionId)!.rounds.push(round);
  }
  end(): void {}
}

const values = defaultConfigValues();
const config = parseConfig(values);
/** Through JSON, as the hook's state file carries it. */
const viaFile = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** What one hook call loads: the configuration parsed once for the call, the mode enforce. */
function hookCall(): GuardConfig {
  const resolved = ResolvedConfig.parse(values);
  return { mode: 'enforce', resolved, config: resolved.config, settings: ladderSettings(config.ladder, config.toolBatch), policy: new PolicyResolver(config.ladder) };
}

/** The event of one hook call in the session (a sub-agent's calls are told apart by agent_id). */
function eventOf(info: SessionInfo): HookEvent {
  const subagent = info.parent === null ? null : info.id;
  return { agent: 'claude-code', name: 'PostToolUse', kind: 'post', sessionId: info.id, transcriptPath: null, subagent, turnKey: null, call: null, answer: null, finalText: null, probe: null };
}

function ledgerEntries(recorded: Recorded[]): LedgerEntry[][] {
  const builder = new LedgerBuilder({ config: values, factories: createDetectorFactories() });
  for (const { info, rounds } of recorded) {
    builder.session(info);
    for (const r of rounds) {
      builder.turn(info.id, r.turn, null);
      builder.round(info.id, r);
    }
    builder.end(info.id);
  }
  // The hook keeps no money and groups nothing: compare the verdicts, not the round's price, loop shape or the call shown beside it.
  return builder.sessions().map((s) => s.entries.map(({ round_usage: _usage, shape: _shape, call: _call, ...e }) => e));
}

function hookEntries(recorded: Recorded[]): LedgerEntry[][] {
  return recorded.map(({ info, rounds }) => {
    const entries: LedgerEntry[] = [];
    let state: SessionState = freshState('claude-code', info.id);
    for (const round of rounds) {
      // A new hook call: everything it knows comes back from the state file.
      state = viaFile(state);
      state.turn = round.turn;
      const feed = new RoundFeed(hookCall(), state, eventOf(info));
      feed.observe({ ...round, index: state.rounds + 1 });
      feed.save();
      for (const r of feed.records) if (r.type === 'decision') entries.push((r as DecisionRecord).entry);
    }
    return entries;
  });
}

describe('the ledger and the hook run one turn module', () => {
  const files = transcripts(FIXTURES);
  /** Both callers' entries per file, computed once: each test below reads them, none fills them. */
  const played = new Map<string, { offline: LedgerEntry[][]; live: LedgerEntry[][] }>();

  beforeAll(async () => {
    for (const file of files) {
      const rec = new Recorder();
      await ingestFile(file, rec);
      played.set(file, { offline: ledgerEntries(rec.sessions), live: hookEntries(rec.sessions) });
    }
  });

  it('finds the fixtures (a walk that found nothing would prove nothing)', () => {
    expect(files.length).toBeGreaterThan(40);
  });

  it.each(files.map((f) => [f.slice(FIXTURES.length + 1), f]))('%s: the same entries offline and live', (_name, file) => {
    const { offline, live } = played.get(file)!;
    expect(live).toEqual(offline);
  });

  it('the fixtures gave the agreement something to agree on: stops, steers, notes and rounds after a stop', () => {
    const levels = new Set([...played.values()].flatMap(({ live }) => live.flat().map((e) => e.intervention.enforce)));
    expect([...levels].sort()).toEqual(['none', 'noted', 'steer', 'stop']);
  });
});
