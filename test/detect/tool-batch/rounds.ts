// A tiny builder of Round objects for driving the tool-batch detectors directly.

import type { Round, ToolAnswer, ToolCall } from '../../../src/model/transcript.js';
import type { Finding, ResumableRoundDetector, RoundDetector } from '../../../src/detect/types.js';
import {
  createToolBatchDetector,
  createToolCycleDetector,
  RoundDigester,
  type ToolBatchConfig,
  type ToolBatchDetector,
} from '../../../src/detect/tool-batch/index.js';
import { defaultToolBatchConfig } from '../../../src/detect/tool-batch/config.js';

export type CallSpec = readonly [name: string, args?: unknown];

export class Rounds {
  private index = 0;
  turn = 1;

  /** A round calling `calls`; `answers` aligned with them, or null for unanswered; `isError` flags every answer. */
  batch(calls: readonly CallSpec[], answers: readonly string[] | null = calls.map(() => 'ok'), isError = false): Round {
    this.index += 1;
    const toolCalls: ToolCall[] = calls.map(([name, args], i) => ({ id: `c${this.index}_${i}`, name, arguments: args ?? {} }));
    const toolAnswers: ToolAnswer[] | null =
      answers === null ? null : answers.map((content) => ({ content, isError }));
    return base(this.turn, this.index, toolCalls, toolAnswers);
  }

  /** A prose-only round: no calls. */
  prose(text = 'thinking out loud'): Round {
    this.index += 1;
    return { ...base(this.turn, this.index, [], []), text };
  }

  /** A real user message: the next rounds belong to a new turn. */
  userTurn(): void {
    this.turn += 1;
  }
}

function base(turn: number, index: number, calls: ToolCall[], answers: ToolAnswer[] | null): Round {
  return { turn, index, line: index, text: '', thinking: [], calls, answers, usage: null, model: null, timestamp: null };
}

export function config(overrides: Partial<ToolBatchConfig> = {}): ToolBatchConfig {
  return { ...defaultToolBatchConfig(), ...overrides };
}

/** Observe every round; return the findings of each round, in order. */
export function drive(detector: RoundDetector, rounds: readonly Round[]): Finding[][] {
  return rounds.map((r) => detector.observe(r).findings);
}

/** 1-based positions of the rounds whose findings include a loop (a stop). */
export function stops(perRound: readonly Finding[][]): number[] {
  const out: number[] = [];
  perRound.forEach((fs, i) => {
    if (fs.some((f) => f.loop)) out.push(i + 1);
  });
  return out;
}

/** The first loop finding, if any. */
export function firstLoop(perRound: readonly Finding[][]): { at: number; finding: Finding } | null {
  for (let i = 0; i < perRound.length; i += 1) {
    const f = perRound[i]!.find((x) => x.loop);
    if (f) return { at: i + 1, finding: f };
  }
  return null;
}

/** Both detectors sharing one digester, as the ledger's factories build them (ledger/detectors.ts). */
export function createToolBatchDetectors(config: ToolBatchConfig): {
  batch: ToolBatchDetector;
  cycle: ResumableRoundDetector & { breakRun(): void };
} {
  const digester = new RoundDigester();
  return { batch: createToolBatchDetector(config, digester), cycle: createToolCycleDetector(config, digester) };
}
