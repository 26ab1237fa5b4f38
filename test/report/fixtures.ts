// Hand-built ledgers: the report formats are functions of this object alone.

import type { LedgerEntry, LedgerReport, SessionLedger } from '../../src/ledger/types.js';

export function entry(over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    turn: 1,
    round: 1,
    line: null,
    detector: 'tool_batch',
    kind: 'repeated_batch',
    confidence: null,
    strike: null,
    evidence: {},
    intervention: { off: 'none', telemetry: 'noted', enforce: 'noted' },
    after_stop: false,
    ...over,
  };
}

export function session(over: Partial<SessionLedger> = {}): SessionLedger {
  return {
    id: 's',
    path: 'runs/s.jsonl',
    format: 'claude-code',
    parent: null,
    project: null,
    model: 'claude-sonnet-4-5',
    turns: 1,
    rounds: 1,
    tool_calls: 0,
    entries: [],
    outcome: { enforce: { steers: 0, stops: [] } },
    ...over,
  };
}

const strike = (count: number, total: number) => ({ count, threshold: 2, total, ceiling: 4, read_only: false });

export const looping = session({
  id: 'loop-1',
  path: 'runs/loop.jsonl',
  turns: 3,
  rounds: 14,
  tool_calls: 21,
  entries: [
    entry({
      turn: 2, round: 6, line: 40, strike: strike(1, 1),
      evidence: { batch_size: 2, repeats: 1 },
      explain: [{ detector: 'tool_batch', kind: 'repeated_batch', statistic: 'strikes', value: 1, threshold: 2, direction: 'above' }],
    }),
    entry({
      turn: 2, round: 7, line: 47, confidence: 1, strike: strike(2, 2),
      evidence: { batch_size: 2, repeats: 2 },
      intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' },
      finalization_reason: 'loop_detected',
      explain: [{ detector: 'tool_batch', kind: 'repeated_batch', statistic: 'strikes', value: 2, threshold: 2, direction: 'above' }],
      excerpts: ['read_file {"path":"src/a.ts"}'],
    }),
    entry({
      turn: 2, round: 8, line: 55, confidence: 1, strike: strike(3, 3),
      intervention: { off: 'none', telemetry: 'noted', enforce: 'none' },
      after_stop: true,
    }),
  ],
  outcome: { enforce: { steers: 0, stops: [{ turn: 2, round: 7 }] } },
  verdicts: [
    { turn: 1, round: 1, line: 3, enforce: 'none', after_stop: false, near_misses: [] },
    {
      turn: 2, round: 6, line: 40, enforce: 'noted', after_stop: false,
      near_misses: [{ detector: 'output', kind: 'near_repetition', statistic: 'similarity', value: 0.81, threshold: 0.85, direction: 'above' }],
    },
  ],
});

export const subAgent = session({
  id: 'loop-1/agent-a',
  path: 'runs/loop.jsonl',
  parent: 'loop-1',
  rounds: 4,
  tool_calls: 3,
  entries: [
    entry({
      turn: 1, round: 3, line: 90, detector: 'thinking', kind: 'thinking_stagnation', confidence: 0.62,
      evidence: { similarity: 0.91 },
    }),
  ],
});

export const steering = session({
  id: 'chat-7',
  path: 'runs/chat.json',
  format: 'openai',
  model: 'gpt-4o',
  turns: 2,
  rounds: 9,
  tool_calls: 0,
  entries: [
    entry({
      turn: 2, round: 5, line: null, detector: 'output', kind: 'near_repetition', confidence: 0.74,
      evidence: { similarity: 0.88, window: 400 },
      intervention: { off: 'none', telemetry: 'noted', enforce: 'steer' },
      reminder: 'You are repeating yourself.',
    }),
  ],
  outcome: { enforce: { steers: 1, stops: [] } },
});

export const calm = session({ id: 'calm-3', path: 'runs/calm.jsonl', format: 'codex', model: null, turns: 2, rounds: 6, tool_calls: 4 });

export function report(sessions: SessionLedger[], over: Partial<LedgerReport> = {}): LedgerReport {
  const paths = [...new Set(sessions.map((s) => s.path))].sort();
  return {
    schema: 'loopledger/1',
    tool: { name: 'loopledger', version: '0.1.0' },
    config: { 'tool_batch.max_strikes': 2 },
    inputs: paths.map((p) => ({
      path: p,
      format: sessions.find((s) => s.path === p)!.format,
      sessions: sessions.filter((s) => s.path === p).length,
      lines: 100,
      skipped: [],
      skipped_lines: 0,
    })),
    sessions,
    summary: {
      sessions: sessions.length,
      rounds: sessions.reduce((a, s) => a + s.rounds, 0),
      entries: sessions.reduce((a, s) => a + s.entries.length, 0),
      skipped_lines: 0,
      enforce: {
        sessions_stopped: sessions.filter((s) => s.outcome.enforce.stops.length > 0).length,
        sessions_steered: sessions.filter((s) => s.outcome.enforce.steers > 0).length,
      },
    },
    ...over,
  };
}

/** The four sessions, plus one skipped line and one input that could not be read. */
export function mixedReport(): LedgerReport {
  const r = report([calm, steering, looping, subAgent]);
  const loop = r.inputs.find((i) => i.path === 'runs/loop.jsonl')!;
  loop.skipped.push({ line: 12, reason: 'invalid JSON' });
  loop.skipped_lines += 1;
  r.inputs.push({ path: 'runs/zz-broken.bin', format: null, sessions: 0, lines: 0, skipped: [], skipped_lines: 0, error: 'binary file' });
  r.summary.skipped_lines = 1;
  return r;
}

// Every kind of hostile byte sequence a transcript could smuggle into a terminal or CI log.
export const ESC = '\x1b';
export const HOSTILE = `${ESC}]0;pwned title\x07${ESC}[31mred${ESC}[0m\x07bell\x9b2J\u202eevil\r\nnext`;

export function hostileReport(): LedgerReport {
  const s = session({
    id: `id-${HOSTILE}`,
    path: `runs/${ESC}]8;;http://x${ESC}\\link.jsonl`,
    model: `m${ESC}[2J`,
    parent: `p${ESC}c`,
    entries: [
      entry({
        turn: 1, round: 2, line: 5, kind: `kind${ESC}[1A${ESC}[2K`, detector: 'tool_batch',
        evidence: { tool: `tool${HOSTILE}` },
        intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' },
        excerpts: [`excerpt ${HOSTILE}`],
        explain: [{ detector: 'tool_batch', kind: `k${ESC}[0m`, statistic: `stat${HOSTILE}`, value: 3, threshold: 2, direction: 'above' }],
        reminder: `r${HOSTILE}`,
      }),
    ],
    outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 2 }] } },
    verdicts: [
      {
        turn: 1, round: 2, line: 5, enforce: 'stop', after_stop: false,
        near_misses: [{ detector: 'output', kind: `nk${HOSTILE}`, statistic: `ns${HOSTILE}`, value: 0.8, threshold: 0.85, direction: 'above' }],
      },
    ],
  });
  const r = report([s]);
  r.inputs[0]!.skipped.push({ line: 3, reason: `bad ${HOSTILE}` });
  r.inputs[0]!.skipped_lines += 1;
  r.inputs.push({ path: `runs/x${HOSTILE}`, format: null, sessions: 0, lines: 0, skipped: [], skipped_lines: 0, error: `unreadable ${HOSTILE}` });
  return r;
}
