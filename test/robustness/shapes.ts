// Inputs shaped like real transcripts, then damaged: every fixture's records with random fields
// replaced, dropped or retyped, records duplicated or dropped, hostile strings mixed in. They get
// past format detection far more often than random JSON does, so the adapters' record handling is
// what gets exercised.

import fc from 'fast-check';

const DEEP = '\u0000deep:';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Values that have broken parsers before: wrong types, empties, extremes, escape sequences. */
export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Json>(
      null,
      '',
      0,
      -1,
      1e308,
      -0,
      true,
      [],
      {},
      [null],
      { id: null },
      '\u001b[31mred\u001b[0m\u001b]0;title\u0007',
      '\u009b2J\r\b',
      'tool\u202eevil',
      '__proto__',
      'constructor',
      'toString',
      '💥'.repeat(50),
      'x'.repeat(5000),
      '{"not":"parsed"}',
      '{broken',
      '[1,2',
    ),
  },
  // Deep enough to defeat any recursion on the way through the adapters and the signature.
  // A placeholder until serialization: JSON.stringify and structuredClone recurse and cannot hold it.
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((d) => `${DEEP}${d}`) },
);

export interface Mutation {
  at: number;
  op: 'replace' | 'delete' | 'retype' | 'duplicate' | 'rename' | 'swap';
  value: Json;
  key: string;
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.constantFrom<Mutation['op']>('replace', 'replace', 'delete', 'retype', 'duplicate', 'rename', 'swap'),
  value: hostileValue,
  key: fc.oneof(fc.constantFrom('__proto__', 'type', 'id', 'role', 'content', 'name', '\u001b[2J'), fc.string({ maxLength: 6 })),
});

type Slot = { parent: Json[] | { [key: string]: Json }; key: string | number };

/** Every (container, key) pair in `root`, found without recursion. */
function slots(root: Json): Slot[] {
  const out: Slot[] = [];
  const stack: Json[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      v.forEach((c, i) => {
        out.push({ parent: v, key: i });
        stack.push(c);
      });
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        out.push({ parent: v, key: k });
        stack.push(v[k]!);
      }
    }
  }
  return out;
}

function retype(v: Json): Json {
  if (typeof v === 'string') return v.length;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v === null) return {};
  if (Array.isArray(v)) return Object.fromEntries(v.map((x, i) => [String(i), x]));
  return Object.values(v);
}

/** `root` after the mutations (a copy; the original is untouched). */
export function mutate(root: Json, mutations: readonly Mutation[]): Json {
  const copy = structuredClone(root);
  for (const m of mutations) {
    const all = slots(copy);
    if (all.length === 0) break;
    const { parent, key } = all[m.at % all.length]!;
    const get = (): Json => (parent as Record<string | number, Json>)[key]!;
    const set = (v: Json) => {
      // defineProperty, so that a key named __proto__ becomes a real key, as JSON.parse makes it.
      Object.defineProperty(parent, key, { value: v, enumerable: true, writable: true, configurable: true });
    };
    switch (m.op) {
      case 'replace':
        set(structuredClone(m.value));
        break;
      case 'retype':
        set(retype(get()));
        break;
      case 'delete':
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key as string];
        break;
      case 'duplicate':
        if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(get()));
        else Object.defineProperty(parent, `${String(key)}_copy`, { value: structuredClone(get()), enumerable: true, writable: true, configurable: true });
        break;
      case 'swap':
        // Records (or blocks) out of order: what a writer that interleaves threads produces.
        if (Array.isArray(parent) && (key as number) + 1 < parent.length) {
          const i = key as number;
          [parent[i], parent[i + 1]] = [parent[i + 1]!, parent[i]!];
        }
        break;
      case 'rename':
        if (!Array.isArray(parent)) {
          const v = get();
          delete parent[key as string];
          Object.defineProperty(parent, m.key, { value: v, enumerable: true, writable: true, configurable: true });
        }
        break;
    }
  }
  return copy;
}

/** The records of a JSONL file (unparseable lines kept as their text), or the one document. */
export function parseTranscript(text: string, jsonl: boolean): Json {
  if (!jsonl) return JSON.parse(text) as Json;
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);
}

export function serializeTranscript(value: Json, jsonl: boolean): string {
  const records = Array.isArray(value) ? value : [value];
  const text = jsonl ? records.map((r) => JSON.stringify(r)).join('\n') + '\n' : JSON.stringify(value, null, 2);
  return text.replace(/"\\u0000deep:(\d+)"/g, (_, d: string) => '['.repeat(Number(d)) + ']'.repeat(Number(d)));
}
