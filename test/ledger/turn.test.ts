// One turn, two callers (issue 31, item 1): every transcript under fixtures/ played through the
// ledger (LedgerBuilder, as `analyze` runs it) and through the hook's turn guard (hook/turn.ts, as
// `loopledger hook` runs it: its state saved to JSON and brought back between every round, the
// session's recurring-failure detector likewise) gives the same entries, round for round.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultConfigValues, parseConfig } from '../../src/config/registry.js';
import { ResolvedConfig } from '../../src/config/resolved.js';
import { createRecurringFailureRoundDetector } from '../../src/detect/tool-batch/index.js';
import type { ResumableRoundDetector } from '../../src/detect/types.js';
import { ingestFile } from '../../src/formats/ingest.js';
import { entryOf, TurnGuard } from '../../src/hook/turn.js';
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
/** What one hook call loads: the configuration parsed once for the call. */
const hookCall = () => ResolvedConfig.parse(values);
const settings = ladderSettings(config.ladder, config.toolBatch);
const policy = new PolicyResolver(config.ladder);
/** Through JSON, as the hook's state file carries it. */
const viaFile = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

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
  // The hook keeps no money and groups nothing: compare the verdicts, not the round's price or loop shape.
  return builder.sessions().map((s) => s.entries.map(({ round_usage: _usage, shape: _shape, ...e }) => e));
}

function hookEntries(recorded: Recorded[]): LedgerEntry[][] {
  return recorded.map(({ info, rounds }) => {
    const entries: LedgerEntry[] = [];
    let guard: TurnGuard | null = null;
    let recurring: unknown = null;
    let model: string | null = null;
    for (const round of rounds) {
      model ??= round.model;
      if (guard === null || guard.turn !== round.turn) {
        const tier = policy.tierFor(round.model ?? model, info.parent !== null);
        guard = TurnGuard.create(round.turn, tier.scale, hookCall(), settings);
      } else {
        // A new hook call: everything it knows comes back from the state file.
        guard = TurnGuard.restore(viaFile(guard.snapshot()), hookCall(), settings);
      }
      const session: ResumableRoundDetector = createRecurringFailureRoundDetector(config.toolBatch);
      session.restore(viaFile(recurring));
      const out = guard.observe(round, session);
      recurring = session.snapshot();
      out.findings.forEach((f, i) => entries.push(entryOf(round, f, out.telemetry[i]!, out.enforce[i]!)));
    }
    return entries;
  });
}

describe('the ledger and the hook run one turn module', () => {
  const files = transcripts(FIXTURES);
  const levels = new Set<string>();

  it('finds the fixtures (a walk that found nothing would prove nothing)', () => {
    expect(files.length).toBeGreaterThan(40);
  });

  it.each(files.map((f) => [f.slice(FIXTURES.length + 1), f]))('%s: the same entries offline and live', async (_name, file) => {
    const rec = new Recorder();
    await ingestFile(file, rec);
    const live = hookEntries(rec.sessions);
    expect(live).toEqual(ledgerEntries(rec.sessions));
    for (const e of live.flat()) levels.add(e.intervention.enforce);
  });

  it('the fixtures gave the agreement something to agree on: stops, steers, notes and rounds after a stop', () => {
    expect([...levels].sort()).toEqual(['none', 'noted', 'steer', 'stop']);
  });
});
