// Issue 56 item 5: "`label` shows a blank screen for ~8 s and orders sessions unlike the overview".
// Through the built binary: the questions come in the overview's order (what `loopledger` lists
// first is asked first), and on a terminal a progress line says what is being read meanwhile.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLongLoop } from '../../bench/long-loop.mjs';
import { describeWith } from '../helpers/capabilities.js';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-label-order-');
const store = join(tmp.dir, 'store');
const SESSIONS = 4;

beforeAll(async () => {
  ensureBuilt();
  // One long loop that Enforce stops early (few entries, much saved), named to sort last by path,
  // and three broken-up loops over three turns (more entries, little saved): a ranking by entry
  // count or by path puts them first; the overview (level, then what Enforce saves) does not.
  await generateLongLoop(join(store, 'z-long.jsonl'), { rounds: 300, seed: 56 });
  for (let i = 1; i < SESSIONS; i++) await generateLongLoop(join(store, `a-${i}.jsonl`), { rounds: 60, seed: 100 + i, varied: 5, turns: 3 });
  writeFileSync(join(tmp.dir, 'answers'), 'c\n'.repeat(SESSIONS));
}, 120_000);
afterAll(() => tmp.cleanup());

/** The short session ids of the overview's rows, top to bottom. */
async function overviewOrder(): Promise<string[]> {
  const r = await runCli([store, '--top', '1'], { env: { COLUMNS: '200' } });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .split('\n')
    .map((l) => /^(?:stop|steer|noted)\b.*?\s([0-9a-f]{8})\s/.exec(l)?.[1])
    .filter((id): id is string => id !== undefined);
}

describe('label asks in the overview order', () => {
  it('the labels file lists the sessions in the order the overview ranks them', async () => {
    const labels = join(tmp.dir, 'order.json');
    const r = await runCli(['label', store, '--batch', join(tmp.dir, 'answers'), '--labels', labels, '--calm', '0']);
    expect(r.code, r.stderr).toBe(0);
    // Answers are written as given, so the file's keys are in the order asked.
    const asked = Object.keys(JSON.parse(readFileSync(labels, 'utf8')) as Record<string, unknown>).filter((k) => k !== '$comment');
    expect(asked).toHaveLength(SESSIONS);
    const overview = await overviewOrder();
    expect(overview).toHaveLength(SESSIONS);
    expect(asked.map((id) => id.slice(0, 8))).toEqual(overview);
  });
});

describeWith('script', 'label on a terminal', () => {
  it('says what it is reading before the first question', () => {
    const labels = join(tmp.dir, 'tty.json');
    const cmd = `${process.execPath} ${join(ROOT, 'bin', 'loopledger.js')} label ${store} --batch ${join(tmp.dir, 'answers')} --labels ${labels} --calm 0`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '' } });
    expect(r.stdout).toMatch(/loopledger: reading sessions to label: \d+\/4 files \(\d+%\)/);
    // The line is taken away before the labeller goes on.
    expect(r.stdout).toContain('\r\u001b[K');
  });
});
