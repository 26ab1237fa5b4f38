// The block being fed, as normalized codes, and a copy of the previous one. Codes, not a growing
// string: concatenated pieces are rope strings that every later read would flatten. Only the
// last max_block_chars are compared, so memory stays bounded by the comparison window.

import type { ArrayPool } from '../text/pool.js';

export class BlockBuffer {
  /** Holds at most 2 × max before the tail is shifted down. */
  private buf: Uint16Array;
  private len = 0;
  /** Holds the previous block (the state's prevText is a view of it): a copy per block was garbage. */
  private prevBuf: Uint16Array = new Uint16Array(0);

  constructor(
    private readonly max: number,
    private readonly pool: ArrayPool,
  ) {
    this.buf = pool.uint16(1024);
  }

  /** A new block starts. */
  clear(): void {
    this.len = 0;
  }

  append(piece: Uint16Array, start: number, end: number): void {
    let n = end - start;
    const max = this.max;
    let skip = start;
    if (n >= max) {
      // A piece as long as the window replaces it: only its own tail can be compared.
      skip = end - max;
      n = max;
      this.len = 0;
    }
    if (this.len + n > this.buf.length) {
      // Only the tail is compared: shift it down before growing past twice the window.
      if (this.len > max) {
        this.buf.copyWithin(0, this.len - max, this.len);
        this.len = max;
      }
      if (this.len + n > this.buf.length) {
        let size = this.buf.length * 2;
        while (size < this.len + n) size *= 2;
        const next = this.pool.uint16(size);
        next.set(this.buf.subarray(0, this.len));
        this.pool.give(this.buf);
        this.buf = next;
      }
    }
    this.buf.set(piece.subarray(skip, end), this.len);
    this.len += end - skip;
  }

  /** The block's last max_block_chars codes (a view, valid until the next append). */
  tail(): Uint16Array {
    return this.buf.subarray(Math.max(0, this.len - this.max), this.len);
  }

  /** `norm` copied into the previous-block buffer (grown by doubling), as a view of its length. */
  keep(norm: Uint16Array): Uint16Array {
    if (this.prevBuf.length < norm.length) {
      let size = Math.max(1024, this.prevBuf.length);
      while (size < norm.length) size *= 2;
      this.pool.give(this.prevBuf);
      this.prevBuf = this.pool.uint16(size);
    }
    this.prevBuf.set(norm);
    return this.prevBuf.subarray(0, norm.length);
  }

  release(): void {
    this.pool.give(this.buf, this.prevBuf);
  }
}
