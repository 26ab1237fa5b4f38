// Scripted fake detectors for driving LedgerBuilder: the real detectors are someone else's, and the
// ledger's job (turn-owned state, the ladder, the columns) is testable without them.

import type { Config } from '../../src/config/registry.js';
import type { ConfigValues } from '../../src/config/spec.js';
import type { DetectorName, Finding, FindingKind, Measurement, RoundDetector, RoundObservation } from '../../src/detect/types.js';
import type { DetectorFactories } from '../../src/ledger/build.js';
import type { Round, SessionInfo, ToolCall } from '../../src/model/transcript.js';
import { LedgerBuilder, type LedgerBuilderOptions } from '../../src/ledger/build.js';

export function finding(detector: DetectorName, kind: FindingKind, over: Partial<Finding> = {}): Finding {
  return {
    detector,
    kind,
    confidence: detector === 'tool_batch' ? null : 0.95,
    strike: null,
    evidence: { statistic: 1 },
    loop: false,
    ambiguous: false,
    crossed: [],
    excerpts: [],
    ...over,
  };
}

/** What a fake sees: the round, and its own instance (for per-instance state). */
export type Script = (round: Round, self: FakeDetector) => Finding[] | RoundObservation;

class FakeDetector implements RoundDetector {
  readonly seen: number[] = [];
  breaks = 0;
  /** Free per-instance memory for scripts (e.g. the previous round's text). */
  memory: unknown = null;

  constructor(
    readonly name: DetectorName,
    private readonly script: Script,
    /** The configuration the ledger parsed for this detector's turn. */
    readonly config: Config,
  ) {}

  /** Times the ledger said this detector's turn was over (release). */
  released = 0;

  observe(round: Round): RoundObservation {
    // As the real text detectors do: their arrays may be another turn's after release.
    if (this.released > 0) throw new Error(`${this.name} observed after release`);
    this.seen.push(round.index);
    const out = this.script(round, this);
    return Array.isArray(out) ? { findings: out, measurements: [] } : out;
  }

  breakRun(): void {
    this.breaks += 1;
  }

  release(): void {
    this.released += 1;
  }
}

export interface Fakes {
  factories: DetectorFactories;
  created: { toolBatch: FakeDetector[]; toolCycle: FakeDetector[]; output: FakeDetector[]; thinking: FakeDetector[] };
}

const silent: Script = () => [];

export function fakeDetectors(scripts: Partial<Record<keyof Fakes['created'], Script>> = {}): Fakes {
  const created: Fakes['created'] = { toolBatch: [], toolCycle: [], output: [], thinking: [] };
  const make = (slot: keyof Fakes['created'], name: DetectorName) => (v: Config) => {
    const d = new FakeDetector(name, scripts[slot] ?? silent, v);
    created[slot].push(d);
    return d;
  };
  return {
    created,
    factories: {
      toolBatch: make('toolBatch', 'tool_batch'),
      toolCycle: make('toolCycle', 'tool_batch'),
      output: make('output', 'output'),
      thinking: make('thinking', 'thinking'),
    },
  };
}

/** Output fires `near_repetition` when this instance saw the same text in an earlier round. */
export const repeatingOutput =
  (over: Partial<Finding> = {}): Script =>
  (round, self) => {
    const seen = (self.memory as Set<string> | null) ?? new Set<string>();
    self.memory = seen;
    const fired = seen.has(round.text);
    seen.add(round.text);
    return fired ? [finding('output', 'near_repetition', over)] : [];
  };

export interface RoundSpec {
  text?: string;
  model?: string | null;
  calls?: ToolCall[];
}

export const INFO: SessionInfo = { id: 's1', path: 'a.jsonl', format: 'canonical', parent: null };

/** Deliver a session of turns of rounds the way an adapter would; round numbers run through the session. */
export function replay(builder: LedgerBuilder, turns: RoundSpec[][], info: SessionInfo = INFO): void {
  builder.session(info);
  let index = 0;
  turns.forEach((rounds, t) => {
    builder.turn(info.id, t + 1, null);
    for (const r of rounds) {
      index += 1;
      builder.round(info.id, {
        turn: t + 1,
        index,
        line: index * 10,
        text: r.text ?? '',
        thinking: [],
        calls: r.calls ?? [],
        answers: r.calls ? r.calls.map(() => ({ content: 'ok', isError: false })) : [],
        usage: null,
        model: r.model === undefined ? 'test-model' : r.model,
        timestamp: null,
      });
    }
  });
  builder.end(info.id);
}

export function build(
  fakes: Pick<Fakes, 'factories'>,
  turns: RoundSpec[][],
  config: ConfigValues = {},
  extra: Partial<LedgerBuilderOptions> = {},
) {
  const warnings: string[] = [];
  const builder = new LedgerBuilder({ config, factories: fakes.factories, onWarning: (m) => warnings.push(m), ...extra });
  replay(builder, turns);
  const [ledger] = builder.sessions();
  return { ledger: ledger!, warnings, builder };
}

/** n rounds of the same text. */
export function same(n: number, text = 'again'): RoundSpec[] {
  return Array.from({ length: n }, () => ({ text }));
}

export function measurement(over: Partial<Measurement>): Measurement {
  return { detector: 'output', kind: 'near_repetition', statistic: 'jaccard', value: 0.5, threshold: 0.85, direction: 'above', ...over };
}
