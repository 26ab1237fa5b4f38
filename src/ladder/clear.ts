// The per-session escape hatch (seed 002: "the per-session clear-detection escape hatch"), offline:
// `ladder.clear_detection` entries `<session id>@<turn>` or `<session id>@<turn>.<round>` clear
// detection for that session from there on. The seed re-reads the flag every round, "so a
// mid-turn clear stops detection immediately and drops the detector state"; so does the ledger.

export interface ClearPoint {
  turn: number;
  /** Session-wide round index (as the ledger numbers rounds); null clears from the turn's start. */
  round: number | null;
}

/**
 * Session id → the earliest clear point. The id is everything before the last `@`, since ids may
 * themselves contain `@` (an e-mail-like id, a sub-agent suffix).
 */
export function parseClearDetection(
  entries: readonly string[],
  warn: (m: string) => void = () => {},
): Map<string, ClearPoint> {
  const out = new Map<string, ClearPoint>();
  for (const raw of entries) {
    const entry = raw.trim();
    const at = entry.lastIndexOf('@');
    const m = at > 0 ? /^(\d+)(?:\.(\d+))?$/.exec(entry.slice(at + 1)) : null;
    const turn = m ? Number(m[1]) : 0;
    const round = m?.[2] !== undefined ? Number(m[2]) : null;
    if (!m || turn < 1 || (round !== null && round < 1)) {
      warn(`ladder.clear_detection: ignoring ${JSON.stringify(raw)} (expected <session id>@<turn> or <session id>@<turn>.<round>)`);
      continue;
    }
    const id = entry.slice(0, at);
    const point: ClearPoint = { turn, round };
    const prev = out.get(id);
    if (!prev || isBefore(point, prev)) out.set(id, point);
  }
  return out;
}

function isBefore(a: ClearPoint, b: ClearPoint): boolean {
  if (a.turn !== b.turn) return a.turn < b.turn;
  return (a.round ?? 0) < (b.round ?? 0);
}

/** Whether detection is cleared at this round: any later turn, or this turn from the round on. */
export function clearedAt(point: ClearPoint | undefined, turn: number, round: number): boolean {
  if (!point) return false;
  if (turn !== point.turn) return turn > point.turn;
  return point.round === null || round >= point.round;
}
