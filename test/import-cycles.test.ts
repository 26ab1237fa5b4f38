// No import cycles in src/ (issue 57, item 5): a module and the modules it imports form a tree, so
// each can be read, tested and loaded without the others half-initialised. Type-only imports
// count too: a cycle of types is where a leaf module was missing.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = 'src';
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.{1,2}\/[^']+)'/g;

/** Each source file's relative imports, as paths from the repository root. */
function graph(): Map<string, string[]> {
  const files = (readdirSync(SRC, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(SRC, f));
  const known = new Set(files);
  const g = new Map<string, string[]>();
  for (const file of files) {
    const deps = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => normalize(join(dirname(file), m[1]!.replace(/\.js$/, '.ts'))));
    g.set(file, deps.filter((d) => known.has(d)));
  }
  return g;
}

/** The strongly connected components with more than one module (Tarjan's algorithm). */
function cycles(g: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import cycles', () => {
  it('finds one where there is one (the check can fail)', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('src/ has none', () => {
    const g = graph();
    expect(g.size).toBeGreaterThan(100);
    expect(cycles(g)).toEqual([]);
  });
});
