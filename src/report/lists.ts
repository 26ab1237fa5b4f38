// What the formats read of a ledger's sessions and inputs, as lists that may not be arrays. A
// merge of any size gives `report.sessions` and `report.inputs` as lists read back from disk each
// time they are iterated (commands/merge.ts): the formats only iterate them, count them here, and
// sort through `ReportOptions.sorter`, which keeps what it sorts on disk there.

/**
 * `items` stably sorted by `compare`, as a list that can be iterated more than once. A caller with
 * a disk sorts out of memory; the default sorts an array (what Array.prototype.sort gives, which is
 * stable, is what any stable sort gives).
 */
export type Sorter = <T>(items: Iterable<T>, compare: (a: T, b: T) => number) => Iterable<T>;

export const sortInMemory: Sorter = (items, compare) => Array.from(items).sort(compare);

export function countOf(items: Iterable<unknown>): number {
  if (Array.isArray(items)) return items.length;
  let n = 0;
  for (const _ of items) n += 1;
  return n;
}

/** A list of the items that pass, iterated as often as `items` is: none held. */
export function filtered<T>(items: Iterable<T>, keep: (item: T) => boolean): Iterable<T> {
  return {
    *[Symbol.iterator]() {
      for (const i of items) if (keep(i)) yield i;
    },
  };
}

/** A list of each item mapped, likewise. */
export function mapped<T, U>(items: Iterable<T>, f: (item: T) => U): Iterable<U> {
  return {
    *[Symbol.iterator]() {
      for (const i of items) yield f(i);
    },
  };
}

/** A list of the first `n` items, likewise. */
export function firstOf<T>(items: Iterable<T>, n: number): Iterable<T> {
  return {
    *[Symbol.iterator]() {
      if (n <= 0) return;
      let left = n;
      for (const i of items) {
        yield i;
        if (--left === 0) return;
      }
    },
  };
}

/** Whether any item passes (stops at the first). */
export function some<T>(items: Iterable<T>, test: (item: T) => boolean): boolean {
  for (const i of items) if (test(i)) return true;
  return false;
}
