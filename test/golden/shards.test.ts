// Soak tier (npm run test:soak): every golden case run again as 3 shards and merged.
// Past one machine (issue 20): every golden case, run as 3 shards (`--shard K/3 --format json`)
// and put back together with `loopledger merge`, must print exactly the golden: the same stdout,
// byte for byte, and the same exit code. Shards are run once per set of analysis flags and shared
// by the cases that only render them differently.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateHome } from '../../bench/home.mjs';
import { corpusStamp } from '../helpers/corpus-stamp.js';
import { CASES, HOME, type GoldenCase } from './cases.js';
import { ensureBuilt } from '../cli/helpers.js';

// It runs or reads the build: the build of src/ as it is now, even when this file runs alone.
beforeAll(() => ensureBuilt());

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(ROOT, 'bin/loopledger.js');
const DATA = join(ROOT, 'test/golden/data');
const OUTCOMES = JSON.parse(readFileSync(join(DATA, 'outcomes.json'), 'utf8')) as Record<string, { exit: number }>;
// Its own copy of the golden home (same seed and options), so this file never races golden.test.ts.
const SHARD_HOME = '.tmp/golden-home-shards';
const SHARDS = 3;
const OUT = join(ROOT, '.tmp/golden-shards');

/** Flags that change what is analyzed (given to each shard); their values follow them. */
const ANALYSIS = new Map([
  ['--scope', 1],
  ['--set', 1],
  ['--param', 1],
  ['--labels', 1],
  ['--max-fpr', 1],
  ['--explain', 0],
  ['--excerpts', 0],
  ['--verbose', 0],
]);
/** Flags that change how the ledger is printed (given to merge). */
const RENDER = new Map([
  ['--no-color', 0],
  ['--top', 1],
  ['--sort', 1],
  ['--format', 1],
  ['--fail-on', 1],
  ['--explain', 0],
  ['--excerpts', 0],
  ['--verbose', 0],
]);

function split(c: GoldenCase): { sweep: boolean; paths: string[]; analysis: string[]; render: string[] } {
  const args = [...c.args];
  const sweep = args[0] === 'sweep';
  if (sweep) args.shift();
  const paths: string[] = [];
  const analysis: string[] = [];
  const render: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) {
      paths.push(a);
      continue;
    }
    const width = ANALYSIS.get(a) ?? RENDER.get(a);
    if (width === undefined) throw new Error(`golden case ${c.name}: flag ${a} is neither an analysis nor a rendering flag here`);
    const flag = args.slice(i, i + 1 + width);
    if (ANALYSIS.has(a)) analysis.push(...flag);
    // A sweep prints as table or json only, from what its partials hold.
    if (RENDER.has(a) && (!sweep || a === '--format' || a === '--no-color')) render.push(...flag);
    i += width;
  }
  return { sweep, paths, analysis, render };
}

async function run(args: string[], c: GoldenCase): Promise<{ stdout: string; stderr: string; exit: number }> {
  const cwd = c.cwd === HOME.dir ? SHARD_HOME : (c.cwd ?? '.');
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      cwd: join(ROOT, cwd),
      env: { PATH: process.env.PATH ?? '', HOME: join(ROOT, '.tmp/golden-empty-home'), NO_COLOR: '1', TZ: 'UTC', LANG: 'C', ...c.env },
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

const shardsOf = new Map<string, Promise<string[]>>();

/** The shard files for a case's analysis (made once per paths + analysis flags + folder). */
function shards(c: GoldenCase): Promise<string[]> {
  const { sweep, paths, analysis } = split(c);
  const key = JSON.stringify([sweep, paths, analysis, c.cwd ?? '.']);
  let made = shardsOf.get(key);
  if (!made) {
    const dir = join(OUT, String(shardsOf.size));
    mkdirSync(dir, { recursive: true });
    made = (async () => {
      const files: string[] = [];
      for (let k = 1; k <= SHARDS; k++) {
        const file = join(dir, `${k}.json`);
        const r = await run([...(sweep ? ['sweep'] : []), ...paths, ...analysis, '--shard', `${k}/${SHARDS}`, '--json', '-o', file], c);
        expect(r.exit, `${c.name} shard ${k}: ${r.stderr}`).toBe(0);
        files.push(file);
      }
      return files;
    })();
    shardsOf.set(key, made);
  }
  return made;
}

beforeAll(async () => {
  const dir = join(ROOT, SHARD_HOME);
  const stamp = join(dir, 'options.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === corpusStamp(HOME)) return;
  await generateHome(dir, { sessions: HOME.sessions, seed: HOME.seed, scale: HOME.scale });
  writeFileSync(stamp, corpusStamp(HOME));
}, 300_000);

// Every case but `config` analyzes or sweeps, the pages included: a shard's JSON ledger carries each
// session's timeline, so the merged page is the page one run draws.
const MERGEABLE = CASES.filter((c) => c.args[0] !== 'config');

describe(`every golden case, as ${SHARDS} shards merged, prints the golden`, () => {
  it('covers every case that analyzes or sweeps', () => {
    expect(MERGEABLE.filter((c) => c.args.includes('html')).length).toBe(2);
    expect(CASES.length - MERGEABLE.length).toBe(2);
    expect(MERGEABLE.length).toBeGreaterThan(10);
  });

  it.each(MERGEABLE.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const files = await shards(c);
    const merged = await run(['merge', ...files, ...split(c).render], c);
    expect(merged.exit, `exit of merge for ${name}: ${merged.stderr}`).toBe(OUTCOMES[name]?.exit);
    const expected = readFileSync(join(DATA, name), 'utf8');
    expect(merged.stdout === expected, `${name}: merged shards differ from the golden`).toBe(true);
  }, 600_000);
});
