// What a drawn timeline needs beyond the entries: where each user turn begins, and how tokens and
// dollars accumulate along the session. Kept only when a renderer asks (`--format html`), so the
// JSON ledger is unchanged; bounded whatever the session's length.

/** The spend curve keeps at most this many points: a timeline is a few hundred pixels wide. */
export const MAX_SPEND_POINTS = 256;
/** Turn boundaries listed per session; more are counted (a line per turn would be noise anyway). */
export const MAX_TURN_STARTS = 2000;

export interface SessionTimeline {
  /** `[turn, round]`: the round (1-based, through the session) that opens each turn, in order; at most MAX_TURN_STARTS. */
  turn_starts: [number, number][];
  /** Turns past MAX_TURN_STARTS, not listed. */
  turn_starts_more: number;
  /**
   * Cumulative spend after a round, `[round, tokens, usd]`, sampled at a doubling stride and always
   * ending at the last round. `usd` is null from the first round that records tokens but has no price.
   */
  spend: [number, number, number | null][];
}

export class TimelineRecorder {
  private readonly starts: [number, number][] = [];
  private startsMore = 0;
  private lastTurn: number | null = null;
  private points: [number, number, number | null][] = [];
  private stride = 1;
  private tokens = 0;
  private usd: number | null = 0;
  private last: [number, number, number | null] | null = null;

  /** One round, with what it cost (`tokens` null: the round records no usage). */
  round(index: number, turn: number, tokens: number | null, usd: number | null): void {
    if (turn !== this.lastTurn) {
      this.lastTurn = turn;
      if (this.starts.length < MAX_TURN_STARTS) this.starts.push([turn, index]);
      else this.startsMore += 1;
    }
    if (tokens !== null) {
      this.tokens += tokens;
      this.usd = this.usd === null || usd === null ? null : this.usd + usd;
    }
    const point: [number, number, number | null] = [index, this.tokens, this.usd === null ? null : round9(this.usd)];
    this.last = point;
    if (index % this.stride !== 0) return;
    this.points.push(point);
    if (this.points.length > MAX_SPEND_POINTS) {
      // Halve: keep the points on the doubled stride.
      this.stride *= 2;
      this.points = this.points.filter(([r]) => r % this.stride === 0);
    }
  }

  snapshot(): SessionTimeline {
    const spend = [...this.points];
    if (this.last && spend.at(-1)?.[0] !== this.last[0]) spend.push(this.last);
    return { turn_starts: this.starts.map(([t, r]) => [t, r]), turn_starts_more: this.startsMore, spend };
  }
}

/** Dollars to a billionth, as the ledger's money fields. */
function round9(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
