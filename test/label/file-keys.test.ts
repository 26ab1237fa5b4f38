// Issue 53, "Labels, text and small things": "a session whose id is `$comment` or `$schema` can never
// be labelled" (the labels file's own keys) and "the labels file keeps raw bidi and C1 characters
// that the JSON ledger escapes". Any id is labelled by `label` and read back by `sweep --labels`;
// the file's own keys go into "$labels", and a file written before that still reads as it did.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';

const LOOP = 'fixtures/calibration/canonical/loop-migrate-retry.jsonl';
const CLEAN = 'fixtures/calibration/canonical/clean-poll-build.jsonl';
const tmp = scratch('loopledger-label-keys-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

/** The looping session of LOOP under another id (the canonical format's `id`). */
function loopWithId(id: string, name: string): string {
  const text = readFileSync(join(ROOT, LOOP), 'utf8').replace('"id":"loop-migrate-retry"', `"id":${JSON.stringify(id)}`);
  return tmp.write(name, text);
}

async function sweepMetrics(files: readonly string[], labels: string): Promise<Record<string, number>> {
  const sweep = await runCli(['sweep', ...files, '--param', 'tool_batch.max_strikes=2:2:1', '--labels', labels, '--format', 'json']);
  expect(sweep.code, sweep.stderr).toBe(0);
  return (JSON.parse(sweep.stdout) as { points: { metrics: Record<string, number> }[] }).points[0]!.metrics;
}

describe('any session id can be labelled and read back', () => {
  const IDS = ['$comment', '$schema', '$labels', '__proto__', 'evil\u202eid\u0085\u2066x\u00ad'];

  it.each(IDS.map((id, i) => [JSON.stringify(id), id, i] as const))('the id %s: label writes it, the sweep counts it', async (_shown, id, i) => {
    const session = loopWithId(id, `keys-${i}.jsonl`);
    const clean = join(ROOT, CLEAN);
    const labels = join(tmp.dir, `keys-${i}.json`);
    const r = await runCli(['label', session, clean, '--calm', '1', '--labels', labels, '--batch', tmp.write(`keys-${i}.txt`, 'l\nc\n')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('labelled 2 sessions (1 loop, 1 clean)');
    // The loop labelled with that id is stopped at its turn 2: a true positive, not a session lost.
    expect(await sweepMetrics([session, clean], labels)).toMatchObject({ tp: 1, fp: 0, tn: 1, fn: 0 });
    // A resumed run knows it is labelled: nothing is asked again.
    const again = await runCli(['label', session, clean, '--calm', '1', '--labels', labels]);
    expect(again.stdout).toContain('nothing to label');
  });

  it('bidi, C1 and invisible characters of an id are escaped in the file, as the JSON ledger escapes them', async () => {
    const id = IDS[4]!;
    const session = loopWithId(id, 'escaped.jsonl');
    const labels = join(tmp.dir, 'escaped.json');
    const r = await runCli(['label', session, '--calm', '0', '--labels', labels, '--batch', tmp.write('escaped.txt', 'l\n')]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(labels, 'utf8');
    expect(text).not.toMatch(/[\u0080-\u009f\u00ad\u2066\u202e]/);
    expect(text).toContain('"evil\\u202eid\\u0085\\u2066x\\u00ad"');
    const ledger = await runCli([session, '--format', 'json']);
    expect(ledger.stdout).toContain('"evil\\u202eid\\u0085\\u2066x\\u00ad"');
    expect(Object.keys(JSON.parse(text) as object)).toContain(id);
  });

  it('a file written before "$labels" reads as it did: a session named "$labels" labelled at the top', async () => {
    const session = loopWithId('$labels', 'old-style.jsonl');
    const clean = join(ROOT, CLEAN);
    for (const [name, value] of [['old-string', '"loop"'], ['old-object', '{ "label": "loop", "turn": 2 }']] as const) {
      const labels = tmp.write(`${name}.json`, `{ "$comment": "old", "$labels": ${value}, "clean-poll-build": "clean" }\n`);
      expect(await sweepMetrics([session, clean], labels)).toMatchObject({ tp: 1, fp: 0, tn: 1, fn: 0 });
    }
  });

  it('the file lists only what sweep reads: $schema and $comment ignored, "$labels" entries taken literally', async () => {
    const session = loopWithId('$schema', 'section.jsonl');
    const labels = tmp.write('section.json', '{ "$schema": "x", "$comment": "y", "$labels": { "$schema": { "label": "loop", "turn": 2 } }, "clean-poll-build": "clean" }\n');
    expect(await sweepMetrics([session, join(ROOT, CLEAN)], labels)).toMatchObject({ tp: 1, fp: 0, tn: 1, fn: 0 });
    const twice = tmp.write('twice.json', '{ "a": "loop", "$labels": { "a": "clean" } }\n');
    const r = await runCli(['sweep', session, '--param', 'tool_batch.max_strikes=2:2:1', '--labels', twice]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`loopledger: labels file ${twice}: "a" is labelled twice (at the top and in "$labels")\n`);
  });
});
