// One "is this a plain object" (issue 57, item 5): src/is-record.ts, and no source file writing the
// check again, so every reader draws the line between a record, an array and null in one place.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRecord } from '../src/is-record.js';

describe('isRecord', () => {
  it('is true of plain objects only', () => {
    expect([{}, { a: 1 }, Object.create(null)].map(isRecord)).toEqual([true, true, true]);
    expect([null, undefined, [], [1], 'x', 1, true].map(isRecord)).toEqual([false, false, false, false, false, false, false]);
  });

  it('is written once: no other file under src/ spells the check out again', () => {
    const again = /typeof (\w+) === 'object' && \1 !== null && !Array\.isArray\(\1\)/;
    const files = (readdirSync('src', { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join('src', f));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((f) => f !== join('src', 'is-record.ts') && again.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
