// Issue 26: "truncated session names are ambiguous (two files show as
// 'ohc_claude35_django__djan…')". The overview names each session so that no two sessions of one
// run read the same, whatever their ids and paths, and keeps names within the column where that
// can be done.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionLabels } from '../../src/report/overview.js';
import { displayWidth } from '../../src/report/text.js';

const segment = fc.stringMatching(/^[a-z0-9_.-]{1,12}$/);
const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
// Ids from a small alphabet collide, share starts and ends and contain one another: the hard cases.
const id = fc.oneof(
  fc.stringMatching(/^[ab_-]{0,40}$/),
  fc.uuid(),
  fc.constantFrom('ohc_claude35_django__django-11099', 'ohc_claude35_django__django-11133', 'django-11099', 'a…b', 'x#1', 'p:x'),
  fc.string({ maxLength: 30, unit: 'grapheme' }),
);
const sessions = fc.uniqueArray(fc.record({ id, path }), { maxLength: 40, selector: (s) => `${s.path}\u0000${s.id}` });

describe('sessionLabels', () => {
  it('for any set of distinct (path, id) pairs, the names are distinct, at any width', () => {
    fc.assert(
      fc.property(sessions, fc.integer({ min: 2, max: 40 }), (list, max) => {
        const names = sessionLabels(list, max);
        expect(names).toHaveLength(list.length);
        expect(new Set(names).size).toBe(list.length);
        expect(new Set(sessionLabels(list)).size).toBe(list.length);
      }),
      { numRuns: 2000 },
    );
  });

  it('one id in two files: the files still tell them apart', () => {
    fc.assert(
      fc.property(fc.uniqueArray(path, { minLength: 2, maxLength: 10 }), id, (paths, same) => {
        const names = sessionLabels(paths.map((p) => ({ id: same, path: p })), 24);
        expect(new Set(names).size).toBe(paths.length);
      }),
    );
  });

  it('a name is cut only when it is longer than the width, and then to the width (plain ASCII names)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z0-9_-]{1,60}$/), { maxLength: 30 }), fc.integer({ min: 8, max: 40 }), (ids, max) => {
        const names = sessionLabels(ids.map((i) => ({ id: i, path: `runs/${i}.traj` })), max);
        names.forEach((n, k) => {
          if (ids[k]!.length <= max) expect(n).toBe(ids[k]);
          // Cut to the width; or, when only a longer end tells it apart, that end after `…`; or whole.
          else expect(n === ids[k] || displayWidth(n) === max || (n.startsWith('…') && ids[k]!.endsWith(n.slice(1)))).toBe(true);
        });
      }),
    );
  });

  it('the two SWE-bench runs of the issue keep their instance numbers', () => {
    const names = sessionLabels(
      [
        { id: 'ohc_claude35_django__django-11099', path: 'runs/a.traj' },
        { id: 'ohc_claude35_django__django-11133', path: 'runs/b.traj' },
      ],
      24,
    );
    expect(names).toEqual(['ohc_claude35_dj…go-11099', 'ohc_claude35_dj…go-11133']);
  });

  it('short ids as git shows them; a UUID prefix two sessions share shows whole', () => {
    const a = '7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5';
    const b = '7c2d41e9-0000-4f3a-8e61-0d93a7b2c4f5';
    const c = '0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37';
    expect(sessionLabels([{ id: c, path: 'x.jsonl' }])).toEqual(['0199a1c4']);
    expect(sessionLabels([a, b, c].map((i) => ({ id: i, path: `${i}.jsonl` })))).toEqual([a, b, '0199a1c4']);
  });

  it('the same session in two folders is prefixed with the fewest trailing path segments that differ', () => {
    const id = '7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5';
    expect(
      sessionLabels([
        { id, path: 'backup/proj/s.jsonl' },
        { id, path: 'live/proj/s.jsonl' },
      ]),
    ).toEqual(['backup/proj/s.jsonl:7c2d41e9', 'live/proj/s.jsonl:7c2d41e9']);
  });
});
