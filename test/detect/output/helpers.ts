import type { Finding } from '../../../src/detect/types.js';
import { OutputLoopDetector, type OutputConfig } from '../../../src/detect/output/index.js';

/** Feed one segment whole, end it, force a pass: every finding in order. */
export function detect(text: string, config: Partial<OutputConfig> = {}): Finding[] {
  const d = new OutputLoopDetector(config);
  return [...d.feed(text), ...d.endSegment(), ...d.analyze()];
}

export function kinds(findings: readonly Finding[]): string[] {
  return [...new Set(findings.map((f) => f.kind))].sort();
}

/** The kinds that claim a loop (predictable_drift never does). */
const LOOP_KINDS = ['exact_block', 'near_repetition', 'short_period', 'connector_stalling'];

export function loopKinds(findings: readonly Finding[]): string[] {
  return kinds(findings).filter((k) => LOOP_KINDS.includes(k));
}

export function first(findings: readonly Finding[], kind: string): Finding {
  const f = findings.find((x) => x.kind === kind);
  if (!f) throw new Error(`no ${kind} finding among ${JSON.stringify(kinds(findings))}`);
  return f;
}
