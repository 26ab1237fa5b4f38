// The overview, --top and --sort, the config table and streamed output, through the built binary.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batch, canonical, ensureBuilt, prose, repeat, runCli, scratch, user, type CanonicalSession } from './helpers.js';

const dir = scratch('loopledger-overview-');
let store = '';

/** 14 sessions in two files: 3 stop on a repeated tool batch, 11 calm. */
beforeAll(() => {
  ensureBuilt();
  const loop = (id: string, n: number, model?: string): CanonicalSession => ({
    id,
    model,
    events: [user('fix the build'), ...repeat([['run_tests', { path: 'src' }]], n, 'same'), prose('done')],
  });
  const calm = (id: string): CanonicalSession => ({ id, events: [user('list files'), batch([['list_dir', { path: '.' }]]), prose('Here they are.')] });
  dir.write('a.jsonl', canonical([loop('loop-short', 3), ...Array.from({ length: 6 }, (_, i) => calm(`calm-a${i}`))]));
  dir.write('b.jsonl', canonical([loop('loop-long', 9, 'claude-opus-4-1-20250805'), loop('loop-mid', 5), ...Array.from({ length: 5 }, (_, i) => calm(`calm-b${i}`))]));
  store = dir.dir;
});
afterAll(() => dir.cleanup());

const widest = (text: string) => text.split('\n').reduce((w, l) => Math.max(w, [...l].length), 0);

describe('the overview through the binary', () => {
  it('more sessions than --top: the overview first, the top sessions in full, calm ones counted', async () => {
    const r = await runCli([store, '--top', '2'], { env: { COLUMNS: '120' } });
    expect(r.code).toBe(0);
    const all = r.stdout.split('\n');
    expect(all[0]).toBe('14 sessions · 3 with findings, worst first · 11 calm (not listed)');
    // Then the loops that cost the most (test/cli/loop-shapes.test.ts), then the sessions.
    expect(all[2]).toBe('Loops that cost the most');
    const lines = [...all.slice(0, 2), ...all.slice(all.indexOf('', 2) + 1)];
    // The ledger now carries usage, cost, saved and cut (money): their columns show, unknown as "–" (no usage in these transcripts).
    expect(lines[2]).toMatch(/^enforce\s+session\s+model\s+rounds\s+findings\s+tokens\s+cost\s+saved\s+cut$/);
    // The longest loop would have been stopped the same way; more findings ranks it first.
    // The loop never recovers after its stop: every prevented round is saved, none cut.
    expect(lines[3]).toMatch(/^stop t1 r3\s+loop-long\s+claude-opus-4-1\s+10\s+8\s+–\s+–\s+7 rounds\s+0$/);
    expect(lines.slice(3, 6).map((l) => l.split(/\s{2,}/)[1])).toEqual(['loop-long', 'loop-mid', 'loop-short']);
    expect(r.stdout).toMatch(/^all 14 sessions\s+/m);
    expect(r.stdout.match(/^session /gm)).toHaveLength(2);
    expect(r.stdout).not.toContain('calm-a');
  });

  it('--sort path, --top 0, and a --top above the count', async () => {
    const byPath = await runCli([store, '--top', '1', '--sort', 'path']);
    expect(byPath.stdout.split('\n')[0]).toContain('3 with findings, by path');
    expect(byPath.stdout).toContain('session loop-short');
    for (const top of ['0', '14', '100']) {
      const r = await runCli([store, '--top', top]);
      expect(r.stdout, top).not.toContain('with findings');
      expect(r.stdout.match(/^session /gm), top).toHaveLength(14);
    }
  });

  it('a bad --top or --sort is a usage error (exit 2)', async () => {
    for (const args of [['--top', '-1'], ['--top', 'ten'], ['--top', '1.5'], ['--sort', 'worst']]) {
      const r = await runCli([store, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/--top takes a whole number|argument 'worst' is invalid/);
    }
  });

  for (const columns of ['60', '80', '160']) {
    it(`COLUMNS=${columns}: the overview and the tables fit`, async () => {
      const r = await runCli([store, '--top', '2'], { env: { COLUMNS: columns } });
      expect(widest(r.stdout)).toBeLessThanOrEqual(Number(columns));
      expect(r.stdout).toMatch(/^stop t1 r3\s+loop-long/m);
    });
  }

  it('markdown carries the same overview', async () => {
    const r = await runCli([store, '--format', 'markdown', '--top', '1']);
    expect(r.stdout).toContain('14 sessions: 3 with findings, worst first; 11 calm, not listed. The first 1 follow in full.');
    expect(r.stdout).toMatch(/^\| \*\*stop\*\* t1 r3 \| loop-long \| claude-opus-4-1 \| 10 \| 8 \| – \| – \| 7 rounds \| 0 \|$/m);
    expect(r.stdout.match(/^### .*/gm)).toEqual(['### Loops that cost the most', expect.stringMatching(/^### .* · loop-long$/)]);
  });

  it('--output-file gets the same bytes as stdout, written in pieces', async () => {
    const elsewhere = scratch('loopledger-overview-out-');
    try {
      const file = join(elsewhere.dir, 'ledger.json');
      const toFile = await runCli([store, '--json', '--output-file', file]);
      expect(toFile.code).toBe(0);
      const toStdout = await runCli([store, '--json']);
      expect(readFileSync(file, 'utf8')).toBe(toStdout.stdout);
      expect(JSON.parse(toStdout.stdout).sessions).toHaveLength(14);
    } finally {
      elsewhere.cleanup();
    }
  });
});

describe('loopledger config fits COLUMNS', () => {
  for (const columns of ['40', '60', '80', '120']) {
    it(`COLUMNS=${columns}, with and without --verbose`, async () => {
      for (const extra of [[], ['--verbose'], ['--set', 'tool_batch.observation_tools=snapshot,screenshot,read_page,navigate,click,hover,scroll']]) {
        const r = await runCli(['config', ...extra], { env: { COLUMNS: columns } });
        expect(r.code).toBe(0);
        expect(widest(r.stdout), `${columns} ${extra.join(' ')}`).toBeLessThanOrEqual(Number(columns));
        expect(r.stdout).toContain('tool_batch.max_strikes');
      }
    });
  }

  it('reasons in plain words on their own line with --verbose; the default named under a changed key', async () => {
    const plain = await runCli(['config', '--set', 'tool_batch.max_strikes=3'], { env: { COLUMNS: '100' } });
    expect(plain.stdout).toMatch(/^tool_batch\.max_strikes\s+3\s+--set\n {4}default: 2$/m);
    expect(plain.stdout).not.toContain('two identical batches');
    expect(plain.stdout).toContain('--verbose gives the reason behind each default');
    const verbose = await runCli(['config', '--verbose'], { env: { COLUMNS: '100' } });
    expect(verbose.stdout).toMatch(/^tool_batch\.max_strikes\s+2\s+default\n {4}seed 000: two identical batches are allowed/m);
  });
});
