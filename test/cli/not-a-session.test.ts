// Issue 56 item 4: "a JSON array or object that is a dataset (thousands of role/content rows with no
// ids, times, tools or usage), or any JSON document that is not a transcript, is skipped with one line
// in --verbose and the skipped count, after reading a bounded prefix, whatever its size; named
// explicitly, it is refused with exit 2".

import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, ensureBuilt, ROOT, runCli, scratch } from './helpers.js';

let space: ReturnType<typeof scratch> | undefined;
afterEach(() => {
  space?.cleanup();
  space = undefined;
});
beforeAll(ensureBuilt);

/**
 * A chat dataset: `rows` role/content objects in one JSON array, about 100 bytes each, written a
 * thousand rows at a time (the 40 MB one, built as one string, held ~250 MB of this worker's heap).
 */
function dataset(path: string, rows: number): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, '[');
    for (let start = 0; start < rows; start += 1000) {
      const out: string[] = [];
      for (let i = start; i < Math.min(rows, start + 1000); i++) out.push(JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `row ${i} of a chat dataset about ${'things '.repeat(10)}` }));
      writeSync(fd, `${start === 0 ? '' : ','}${out.join(',')}`);
    }
    writeSync(fd, ']');
  } finally {
    closeSync(fd);
  }
}

/** A GeoJSON feature collection, pretty-printed over many lines. */
function geojson(path: string, features: number): void {
  const f = Array.from({ length: features }, (_, i) => ({ type: 'Feature', properties: { name: `p${i}` }, geometry: { type: 'Point', coordinates: [i / 1000, i / 2000] } }));
  writeFileSync(path, JSON.stringify({ type: 'FeatureCollection', features: f }, null, 1));
}

describe('files that are no session', () => {
  it('are skipped in a folder on their first megabyte, counted, and named with --verbose', async () => {
    space = scratch('loopledger-nosession-');
    dataset(join(space.dir, 'chat-dataset.json'), 80_000); // ~8 MB
    geojson(join(space.dir, 'map.geojson.json'), 40_000); // ~6 MB
    space.write('session.jsonl', '');
    const r = await runCli([space.dir, join(ROOT, 'fixtures', 'claude-code', 'looping-test-fix.jsonl'), '--json', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { summary: { sessions: number; rounds: number }; not_transcripts: { path: string; reason: string }[] };
    // Only the fixture's session: the dataset's 80,000 rows add no round.
    expect(report.summary.sessions).toBe(1);
    expect(report.summary.rounds).toBe(7);
    const reasons = Object.fromEntries(report.not_transcripts.map((f) => [f.path.split('/').at(-1), f.reason]));
    expect(reasons).toMatchObject({ 'chat-dataset.json': 'dataset', 'map.geojson.json': 'json-document' });
    expect(r.stderr).toMatch(/chat-dataset\.json: not a transcript: a dataset, no session: a \d+\.\d MB JSON array of role\/content rows/);
    expect(r.stderr).toMatch(/found in the directories are not a transcript \(.*1 datasets.*1 other JSON documents/);
  });

  it('named on the command line, are refused with exit 2 without being parsed whole', async () => {
    space = scratch('loopledger-nosession-');
    const big = join(space.dir, 'big-dataset.json');
    dataset(big, 400_000); // ~40 MB: parsing it whole took 34-68 s
    const geo = join(space.dir, 'map.json');
    geojson(geo, 60_000);
    for (const path of [big, geo]) {
      const r = await runCli([path]);
      expect(r.code, path).toBe(2);
      expect(r.stderr).toMatch(/no session/);
      // Parsing the dataset whole took 34-68 s; judged on its first MB it takes the CPU of a start
      // (~0.4 s here). CPU time, not the clock: a loaded machine stretches the clock, not the work.
      const timed = spawnSync('bash', ['-c', 'TIMEFORMAT="%U %S"; time node "$0" "$1" >/dev/null 2>&1', join(ROOT, 'bin', 'loopledger.js'), path], { encoding: 'utf8', env: cliEnv() });
      const [user, system] = timed.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
      expect(user! + system!, path).toBeLessThan(1.5);
    }
  }, 120_000);

  it('leave a small JSON array of messages alone: an OpenAI message log is still read', async () => {
    const r = await runCli([join(ROOT, 'fixtures', 'openai', 'calm-weather.json'), '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { summary: { sessions: number } }).summary.sessions).toBe(1);
  });
});
