// Building findings and measurements the same way for the output and thinking detectors.

import type { DetectorName, Evidence, Finding, FindingKind, Measurement } from '../types.js';

/** At most three excerpts of at most 80 characters (seed 002: the judge's bounded evidence). */
/** No heuristic claims certainty. */
export const MAX_CONFIDENCE = 0.99;
/** A connector-only run is degenerate but cheap; strong enough to steer, weaker than a block. */
export const CONNECTOR_RUN_CONFIDENCE = 0.85;
/** Connector openings are a habit signal with content between: steer-level only. */
export const CONNECTOR_OPENING_CONFIDENCE = 0.7;
const MAX_EXCERPTS = 3;
const MAX_EXCERPT_CHARS = 80;

/** Confidences and statistics are rounded so JSON output is stable and readable. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function clip(text: string): string {
  return text.length <= MAX_EXCERPT_CHARS ? text : text.slice(0, MAX_EXCERPT_CHARS);
}

export function finding(
  detector: DetectorName,
  kind: FindingKind,
  confidence: number,
  evidence: Evidence,
  crossed: Measurement[],
  excerpts: string[],
  ambiguous = false,
): Finding {
  return {
    detector,
    kind,
    confidence: round3(Math.min(1, Math.max(0, confidence))),
    strike: null,
    evidence,
    loop: false,
    ambiguous,
    crossed,
    excerpts: excerpts.filter((e) => e.length > 0).slice(0, MAX_EXCERPTS).map(clip),
  };
}

/**
 * Measurements of one round, one per (kind, statistic): the value closest to firing wins, so a
 * near miss is the best the round came to its threshold.
 */
export class MeasurementLog {
  private readonly byKey = new Map<string, Measurement>();
  /** Composed keys by kind and statistic: built once, not concatenated on every record. */
  private readonly keys = new Map<string, Map<string, string>>();

  constructor(private readonly detector: DetectorName) {}

  record(kind: FindingKind, statistic: string, value: number, threshold: number, direction: 'above' | 'below' = 'above'): Measurement {
    const m: Measurement = { detector: this.detector, kind, statistic, value: round3(value), threshold, direction };
    const key = this.key(kind, statistic);
    const prev = this.byKey.get(key);
    if (!prev || (direction === 'above' ? m.value >= prev.value : m.value <= prev.value)) this.byKey.set(key, m);
    return m;
  }

  /** `record` when the caller does not keep the measurement: allocates only when it is kept. */
  note(kind: FindingKind, statistic: string, value: number, threshold: number): void {
    const v = round3(value);
    const key = this.key(kind, statistic);
    const prev = this.byKey.get(key);
    if (!prev || v >= prev.value) {
      this.byKey.set(key, { detector: this.detector, kind, statistic, value: v, threshold, direction: 'above' });
    }
  }

  private key(kind: string, statistic: string): string {
    let byStat = this.keys.get(kind);
    if (!byStat) this.keys.set(kind, (byStat = new Map()));
    let key = byStat.get(statistic);
    if (key === undefined) byStat.set(statistic, (key = `${kind}\u0000${statistic}`));
    return key;
  }

  take(): Measurement[] {
    const out = Array.from(this.byKey.values());
    this.byKey.clear();
    return out;
  }

  entries(): Measurement[] {
    return Array.from(this.byKey.values());
  }

  load(ms: readonly Measurement[]): void {
    this.byKey.clear();
    for (const m of ms) this.byKey.set(`${m.kind}\u0000${m.statistic}`, { ...m });
  }
}

/** One finding per kind for a round: the most confident (the later one on ties). */
export function strongestPerKind(findings: readonly Finding[]): Finding[] {
  const byKind = new Map<string, Finding>();
  for (const f of findings) {
    const prev = byKind.get(f.kind);
    if (!prev || (f.confidence ?? 0) >= (prev.confidence ?? 0)) byKind.set(f.kind, f);
  }
  return Array.from(byKind.values());
}

/**
 * Issue 54 item 5: connector openings the round's own text or reasoning holds too few of to cross
 * the bar are carried over from earlier rounds, one sentence a round ("Now let me …") about the
 * work between: a habit of narration, which the ladder only notes. Marked only when so.
 */
export function markCarried(findings: Finding[], carried: boolean): void {
  if (!carried) return;
  for (const f of findings) if (f.kind === 'connector_stalling' && f.evidence.pattern === 'openings') f.evidence = { ...f.evidence, carried: true };
}
