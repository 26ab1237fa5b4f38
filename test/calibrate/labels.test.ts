import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLabels, parseLabels } from '../../src/calibrate/labels.js';
import { ConfigError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loopledger-labels-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadLabels', () => {
  it('reads the three forms', async () => {
    const path = join(dir, 'labels.json');
    await writeFile(path, `\ufeff${JSON.stringify({
      $comment: 'hand-labeled',
      'sess-1': 'loop',
      'run.jsonl': 'Clean',
      'sess-2': { label: 'loop', turn: 3 },
      'sess-3': { label: 'clean' },
    })}`);
    const labels = await loadLabels(path);
    expect([...labels.entries()]).toEqual([
      ['sess-1', { label: 'loop', turn: null }],
      ['run.jsonl', { label: 'clean', turn: null }],
      ['sess-2', { label: 'loop', turn: 3 }],
      ['sess-3', { label: 'clean', turn: null }],
    ]);
  });

  it('an unreadable or non-JSON file is a ConfigError naming it', async () => {
    const missing = join(dir, 'missing.json');
    await expect(loadLabels(missing)).rejects.toThrow(ConfigError);
    await expect(loadLabels(missing)).rejects.toThrow(missing);
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"a": "loop",');
    await expect(loadLabels(bad)).rejects.toThrow(/bad\.json is not valid JSON/);
  });

  it.each([
    [['loop'], /must hold a JSON object/],
    [{ a: 'loopy' }, /"a": expected "loop", "clean"/],
    [{ a: 1 }, /"a": expected/],
    [{ a: { label: 'maybe' } }, /"a": "label" must be/],
    [{ a: { label: 'loop', turn: 0 } }, /"turn" must be a whole number of at least 1/],
    [{ a: { label: 'loop', turn: 1.5 } }, /"turn" must be/],
    [{ a: { label: 'clean', turn: 2 } }, /a clean session has none/],
  ])('rejects %j', (raw, pattern) => {
    expect(() => parseLabels(raw, 'l.json')).toThrow(ConfigError);
    expect(() => parseLabels(raw, 'l.json')).toThrow(pattern);
    expect(() => parseLabels(raw, 'l.json')).toThrow(/l\.json/);
  });
});
