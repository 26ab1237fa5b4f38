// The order test files start in. vitest starts the longest first when its results cache knows
// their durations, and otherwise the largest files first: in a fresh clone (CI, a newcomer's first
// `npm test`) a short file full of slow cases then starts last and runs alone at the end
// (interrupted-output.test.ts, 150 lines and 55 s, was among the last to start). Without a cache,
// the durations of test/durations.json decide instead (`node bench/suite-durations.mjs LOG`
// rewrites it from a run's log); a file it does not know starts first, as vitest starts one it has
// never run.

import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const durations = JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const key = (f: TestSpecification) => `${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`;
    if (files.some((f) => this.ctx.cache.getFileTestResults(key(f)) !== undefined)) return super.sort(files);
    const seconds = (f: TestSpecification) => durations[key(f)] ?? Number.POSITIVE_INFINITY;
    const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...files].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || byName(a.project.name, b.project.name) || seconds(b) - seconds(a) || byName(key(a), key(b)),
    );
  }
}
