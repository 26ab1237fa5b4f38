// The one registry of detectors and the kinds they emit. Each detector declares its kinds beside
// its code; this file only gathers them, so a kind is named once and `Finding.kind` is their union.

import type { KindInfo } from './kind.js';
import { OUTPUT_KINDS } from './output/kinds.js';
import { THINKING_KINDS } from './thinking/kinds.js';
import { TOOL_BATCH_KINDS } from './tool-batch/kinds.js';

/** In the order the ledger feeds them a round, and the order SPEC lists them. */
const DETECTORS = {
  tool_batch: TOOL_BATCH_KINDS,
  output: OUTPUT_KINDS,
  thinking: THINKING_KINDS,
} as const;

export type DetectorName = keyof typeof DETECTORS;
export const DETECTOR_NAMES = Object.keys(DETECTORS) as DetectorName[];

/** Every kind any detector emits. */
export type FindingKind = { [D in DetectorName]: keyof (typeof DETECTORS)[D] & string }[DetectorName];

/** What a (detector, kind) pair declares; undefined for a pair no detector emits (a hand-edited ledger). */
export function kindInfo(detector: string, kind: string): KindInfo | undefined {
  const table = (DETECTORS as Record<string, Record<string, KindInfo>>)[detector];
  return table !== undefined && Object.hasOwn(table, kind) ? table[kind] : undefined;
}

/** Every (detector, kind) pair, in declaration order. */
export function allKinds(): { detector: DetectorName; kind: FindingKind; info: KindInfo }[] {
  return DETECTOR_NAMES.flatMap((detector) =>
    Object.entries(DETECTORS[detector] as Record<string, KindInfo>).map(([kind, info]) => ({ detector, kind: kind as FindingKind, info })),
  );
}
