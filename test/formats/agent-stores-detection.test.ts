// Every bundled fixture, read through the CLI as one folder, is detected as the format of the folder
// it sits in: `fixtures/<format>/…`, `fixtures/calibration/<format>/…`, and the agents' recordings
// `fixtures/agents/<agent>-<version>/…` as their registry format. The readers of the tree-shaped
// JSONL stores (pi, Droid) claim no other format's file, and no other reader claims theirs. A folder
// walk reads a database by its store's file name only: OpenClaw's recorded store is among these, and
// the hand-made fixtures/openclaw database is read by path in test/formats/openclaw.test.ts.

import { join, relative, sep } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/agents/index.js';
import { ensureBuilt, ROOT, runCli } from '../cli/helpers.js';

const FIXTURES = join(ROOT, 'fixtures');

/** The format a fixture's folder names. */
function expectedFormat(path: string): string | undefined {
  const [top, next] = relative(FIXTURES, path).split(sep);
  // `<agent>-<version>`: the pinned release and the older ones kept beside it.
  if (top === 'agents') return AGENTS.find((a) => next?.replace(/-\d[\w.]*$/, '') === a.name)?.format;
  return top === 'calibration' ? next : top;
}

let inputs: { path: string; format: string }[];
beforeAll(async () => {
  ensureBuilt();
  const r = await runCli(['analyze', FIXTURES, '--format', 'json']);
  inputs = JSON.parse(r.stdout).inputs;
});

describe('detection of the agents\' stores among all bundled fixtures', () => {
  it('reads each fixture as the format of its folder', () => {
    const wrong = inputs.filter((i) => i.format !== expectedFormat(i.path)).map((i) => `${relative(FIXTURES, i.path)}: ${i.format}`);
    expect(wrong).toEqual([]);
  });

  it.each(['pi', 'droid'])('finds the %s fixtures (the recording and the hand-made one), and only those', (format) => {
    const claimed = inputs.filter((i) => i.format === format).map((i) => relative(FIXTURES, i.path).split(sep)[0]);
    expect(new Set(claimed)).toEqual(new Set(['agents', format]));
  });
});
