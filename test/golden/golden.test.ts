// Byte-identical behaviour across refactors and speed-ups (issues 12 and 17): every case of
// cases.ts run through the built binary must print exactly what test/golden/data holds.
// `npm run golden:update` (GOLDEN_UPDATE=1) rewrites the data instead of comparing.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateHome } from '../../bench/home.mjs';
import { corpusStamp } from '../helpers/corpus-stamp.js';
import { CASES, HOME, type GoldenCase } from './cases.js';
import { ensureBuilt, needsProcess, runBuiltMain } from '../cli/helpers.js';

// It runs or reads the build: the build of src/ as it is now, even when this file runs alone.
beforeAll(() => ensureBuilt());

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/loopledger.js');
const DATA = join(ROOT, 'test/golden/data');
const OUTCOMES = join(DATA, 'outcomes.json');
const UPDATE = process.env.GOLDEN_UPDATE === '1';

interface Outcome {
  exit: number;
  stderr: string;
}

/**
 * The cases run in UTC. Those run from the repository call the built `main` in this worker
 * (runBuiltMain, checked against the binary by test/cli/in-worker.test.ts), so the worker's own
 * zone is UTC too while they run: the machine's zone is read through Intl, and Node follows TZ when
 * it is set. The worker's own zone is put back after, for the files that run after this one in it.
 */
const workerZone = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'UTC';
});
afterAll(() => {
  if (workerZone === undefined) delete process.env.TZ;
  else process.env.TZ = workerZone;
});

async function run(c: GoldenCase): Promise<{ stdout: string } & Outcome> {
  // An empty HOME: no real store or user configuration can leak into a golden.
  const env = { PATH: process.env.PATH ?? '', HOME: join(ROOT, '.tmp/golden-empty-home'), NO_COLOR: '1', TZ: 'UTC', LANG: 'C', ...c.env };
  if (c.cwd === undefined && needsProcess(c.args) === null) {
    const r = await runBuiltMain(c.args, env);
    return { stdout: r.stdout, stderr: r.stderr, exit: r.code ?? -1 };
  }
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...c.args], {
      cwd: join(ROOT, c.cwd ?? '.'),
      env,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    return { stdout, stderr, exit: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: unknown };
    if (typeof failed.code !== 'number') throw error;
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', exit: failed.code };
  }
}

/** The first line where two texts differ, to make a failure readable in a 200 KB ledger. */
function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const e = expected.split('\n');
  for (let i = 0; i < Math.max(a.length, e.length); i++) {
    if (a[i] !== e[i]) return `line ${i + 1}:\n  expected: ${JSON.stringify(e[i])}\n  actual:   ${JSON.stringify(a[i])}`;
  }
  return 'identical';
}

beforeAll(async () => {
  const dir = join(ROOT, HOME.dir);
  const stamp = join(dir, 'options.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === corpusStamp(HOME)) return;
  await generateHome(dir, { sessions: HOME.sessions, seed: HOME.seed, scale: HOME.scale });
  writeFileSync(stamp, corpusStamp(HOME));
}, 300_000);

describe.runIf(UPDATE)('golden data, rewritten (GOLDEN_UPDATE=1)', () => {
  it('records every case', async () => {
    mkdirSync(DATA, { recursive: true });
    const outcomes: Record<string, Outcome> = {};
    for (const c of CASES) {
      const { stdout, ...outcome } = await run(c);
      writeFileSync(join(DATA, c.name), stdout);
      outcomes[c.name] = outcome;
    }
    writeFileSync(OUTCOMES, `${JSON.stringify(outcomes, null, 2)}\n`);
  }, 600_000);
});

describe.skipIf(UPDATE)('outputs stay byte-identical to test/golden/data', () => {
  const outcomes = JSON.parse(readFileSync(OUTCOMES, 'utf8')) as Record<string, Outcome>;

  it('every recorded case is still a case, and every case is recorded', () => {
    expect(Object.keys(outcomes).sort()).toEqual(CASES.map((c) => c.name).sort());
  });

  it.concurrent.each(CASES.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const expected = readFileSync(join(DATA, name), 'utf8');
    const actual = await run(c);
    expect(actual.exit, `exit code of ${c.args.join(' ')}`).toBe(outcomes[name]?.exit);
    expect(actual.stderr, `stderr of ${c.args.join(' ')}`).toBe(outcomes[name]?.stderr);
    if (actual.stdout !== expected) {
      expect.fail(`${name} (loopledger ${c.args.join(' ')}) differs from the golden at ${firstDifference(actual.stdout, expected)}`);
    }
  });
});
