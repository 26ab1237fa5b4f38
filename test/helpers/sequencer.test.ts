// test/helpers/sequencer.ts: without vitest's own durations, test/durations.json's decide.

import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import durations from '../durations.json' with { type: 'json' };
import { DurationSequencer } from './sequencer.js';

const ROOT = '/repo';
const spec = (project: string, groupOrder: number, file: string) =>
  ({ project: { name: project, config: { sequence: { groupOrder } } }, moduleId: `${ROOT}/${file}` }) as unknown as TestSpecification;
const sequencer = (cached: Record<string, number>) =>
  new DurationSequencer({
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => (key in cached ? { duration: cached[key], failed: false } : undefined),
      getFileStats: () => ({ size: 1 }),
    },
  } as unknown as Vitest);
const names = (files: TestSpecification[]) => files.map((f) => `${f.project.name}:${f.moduleId.slice(ROOT.length + 1)}`);

describe('the order test files start in', () => {
  const known = Object.entries(durations as Record<string, number>).filter(([k]) => k.startsWith('end-to-end:'));
  const [longest] = known.reduce((a, b) => (b[1] > a[1] ? b : a));
  const [shortest] = known.reduce((a, b) => (b[1] < a[1] ? b : a));
  const file = (key: string) => key.slice('end-to-end:'.length);

  it('without a cache: by group, then project, then the recorded durations, longest first; an unknown file first', async () => {
    const files = [spec('end-to-end', 1, file(shortest)), spec('unit', 0, 'test/a.test.ts'), spec('end-to-end', 1, 'test/new.test.ts'), spec('end-to-end', 1, file(longest))];
    expect(names(await sequencer({}).sort(files))).toEqual(['unit:test/a.test.ts', 'end-to-end:test/new.test.ts', longest, shortest]);
  });

  it("with vitest's own durations: vitest's order (its cache, longest first)", async () => {
    const files = [spec('end-to-end', 1, file(longest)), spec('end-to-end', 1, file(shortest))];
    expect(names(await sequencer({ [shortest]: 99, [longest]: 1 }).sort(files))).toEqual([shortest, longest]);
  });
});
