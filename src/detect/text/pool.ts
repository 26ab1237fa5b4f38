// Typed arrays handed from a finished turn's text detectors to the next turn's. The ledger builds
// fresh detectors for every turn and their rings and tables start small and double, so a long
// file churned about three bytes of short-lived typed arrays per byte read; V8 frees those only
// when it collects their owners, and at 1 GB up to 40 MB of them sat dead at once (SPEC: peak
// RSS under 200 MB). An array taken from the pool is indistinguishable from a new one: the same
// length, every element zero (or the fill asked for), a buffer of its own.

type Kind = 'f64' | 'i32' | 'u16';
type ArrayOf<K extends Kind> = K extends 'f64' ? Float64Array : K extends 'i32' ? Int32Array : Uint16Array;

/**
 * Free arrays kept per kind and length. A turn gives back at most a handful of one size (three
 * word rings, five table columns), and a few sessions of a file can be in a turn at once; more
 * than this are left to the garbage collector, so what the pool holds stays bounded.
 */
const MAX_FREE_PER_LENGTH = 16;

export class ArrayPool {
  private readonly free: Record<Kind, Map<number, ArrayBufferView[]>> = { f64: new Map(), i32: new Map(), u16: new Map() };

  float64(length: number): Float64Array {
    return this.take('f64', length, 0);
  }

  int32(length: number, fill = 0): Int32Array {
    return this.take('i32', length, fill);
  }

  uint16(length: number): Uint16Array {
    return this.take('u16', length, 0);
  }

  /**
   * Hand arrays back; none of them may be used again by the giver. Views into a larger buffer
   * are ignored (another part of that buffer may still be in use), as are foreign kinds.
   */
  give(...arrays: readonly (ArrayBufferView | null | undefined)[]): void {
    for (const a of arrays) {
      if (!a || a.byteOffset !== 0 || a.byteLength !== a.buffer.byteLength || !(a.buffer instanceof ArrayBuffer)) continue;
      const kind: Kind | null =
        a instanceof Float64Array ? 'f64' : a instanceof Int32Array ? 'i32' : a instanceof Uint16Array ? 'u16' : null;
      if (kind === null) continue;
      const length = (a as Float64Array | Int32Array | Uint16Array).length;
      const list = this.free[kind].get(length);
      if (!list) this.free[kind].set(length, [a]);
      else if (list.length < MAX_FREE_PER_LENGTH && !list.includes(a)) list.push(a);
    }
  }

  private take<K extends Kind>(kind: K, length: number, fill: number): ArrayOf<K> {
    const reused = this.free[kind].get(length)?.pop() as ArrayOf<K> | undefined;
    if (reused) {
      reused.fill(fill);
      return reused;
    }
    const fresh = (kind === 'f64' ? new Float64Array(length) : kind === 'i32' ? new Int32Array(length) : new Uint16Array(length)) as ArrayOf<K>;
    if (fill !== 0) fresh.fill(fill);
    return fresh;
  }
}
