// A lane of `--jobs` (src/run/file-pool.ts) whose worker dies must lose no file and hang on none:
// the file it died on is analyzed on this thread, and a new worker takes the lane's next files
// (after two deaths in a row, this thread takes them). The lanes run from dist/, with a worker
// module that dies on the files named for it (test/robustness/workers/dying-lane.mjs).

import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnostics, ensureBuilt, FIXTURES, ROOT, scratch, within, type Scratch } from './helpers.js';
import type * as Audit from '../../src/run/audit.js';
import type * as FilePool from '../../src/run/file-pool.js';
import type * as Options from '../../src/run/options.js';

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(join(ROOT, 'dist', rel)).href)) as T;
const DYING_LANE = new URL('./workers/dying-lane.mjs', import.meta.url);

let audit: typeof Audit;
let pool: typeof FilePool;
let tmp: Scratch;

const FIXTURE_FILES = [
  'claude-code/looping-test-fix.jsonl',
  'claude-code/calm-readme-update.jsonl',
  'claude-code/stream-json-flaky-drain.jsonl',
  'codex/rollout-2026-02-20T16-41-09-0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37.jsonl',
];

beforeAll(async () => {
  ensureBuilt();
  audit = await load('run/audit.js');
  pool = await load('run/file-pool.js');
  tmp = scratch('loopledger-lanes-');
});

afterAll(() => tmp?.cleanup());

/** A fixture copied under a new name (the dying worker reads the name). */
function copy(fixture: string, name: string): string {
  const to = join(tmp.dir, name);
  copyFileSync(join(FIXTURES, fixture), to);
  return to;
}

const collect = () => diagnostics();

async function oneThread(files: readonly string[]) {
  const here = collect();
  const results: Options.FileLedger[] = [];
  for (const f of files) results.push(await audit.auditFile(f, { ...here.options, jobs: 1 }));
  return { json: JSON.stringify(results), said: here.said };
}

async function inLanes(files: readonly string[], jobs: number) {
  const lanes = collect();
  const results = await within(60_000, pool.auditInWorkers(files, jobs, lanes.options, audit.auditFile, false, DYING_LANE), `${jobs} lane(s)`);
  return { json: JSON.stringify(results), said: lanes.said, paths: results.map((r) => r.input.path) };
}

describe('a lane whose worker dies', () => {
  it('an exit or an uncaught exception: the file is analyzed here, the next ones by a new worker', async () => {
    const files = [
      ...FIXTURE_FILES.map((f) => join(FIXTURES, f)),
      copy(FIXTURE_FILES[0]!, 'a-die-exit.jsonl'),
      copy(FIXTURE_FILES[1]!, 'b-die-throw.jsonl'),
      copy(FIXTURE_FILES[3]!, 'c-die-exit.jsonl'),
    ];
    const expected = await oneThread(files);
    for (const jobs of [1, 2, 3]) {
      const got = await inLanes(files, jobs);
      expect(got.paths).toEqual(files);
      expect(got.json, `${jobs} lane(s)`).toBe(expected.json);
      expect(got.said, `${jobs} lane(s)`).toEqual(expected.said);
    }
  }, 120_000);

  it('workers that die on every file: after two in a row, the lane\'s files are analyzed here', async () => {
    const files = FIXTURE_FILES.map((f, i) => copy(f, `${i}-die-throw.jsonl`));
    const expected = await oneThread(files);
    const got = await inLanes(files, 1);
    expect(got.json).toBe(expected.json);
    expect(got.said).toEqual(expected.said);
  }, 120_000);
});
