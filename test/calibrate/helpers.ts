// Hand-built ledgers for sweep tests: only the fields the sweep reads are meaningful.

import type { EnforceLevel, LedgerEntry, SessionLedger } from '../../src/ledger/types.js';

export interface EntrySpec {
  turn?: number;
  round: number;
  enforce: EnforceLevel;
  after_stop?: boolean;
}

function entry(e: EntrySpec): LedgerEntry {
  return {
    turn: e.turn ?? 1,
    round: e.round,
    line: null,
    detector: 'tool_batch',
    kind: 'repeated_batch',
    confidence: null,
    strike: null,
    evidence: {},
    intervention: { off: 'none', telemetry: e.enforce === 'none' ? 'none' : 'noted', enforce: e.enforce },
    after_stop: e.after_stop ?? false,
  };
}

export function session(id: string, entries: EntrySpec[], opts: { path?: string; rounds?: number; parent?: string } = {}): SessionLedger {
  const list = entries.map(entry);
  return {
    id,
    path: opts.path ?? `/corpus/${id}.jsonl`,
    format: 'canonical',
    parent: opts.parent ?? null,
    project: null,
    model: null,
    turns: Math.max(1, ...list.map((e) => e.turn)),
    rounds: opts.rounds ?? Math.max(1, ...list.map((e) => e.round)),
    tool_calls: 0,
    entries: list,
    outcome: {
      enforce: {
        steers: list.filter((e) => e.intervention.enforce === 'steer').length,
        stops: list.filter((e) => e.intervention.enforce === 'stop' && !e.after_stop).map((e) => ({ turn: e.turn, round: e.round })),
      },
    },
  };
}
