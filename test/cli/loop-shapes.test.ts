// `summary.loop_shapes` through the built binary (SPEC 0.3 "Loop shapes": "the same tool
// signature or finding kind normalised across sessions (names and argument shape, not values).
// `merge` adds them up; the overview, markdown and html show the top few").
//
// The corpus is written here with known usage on a priced model, so every expected figure is
// worked out by hand below from the transcripts and the list price of claude-sonnet-4-5
// ($3 per million input tokens, $15 per million output tokens), not read from the ledger.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardKey, shardOf } from '../../src/read/shard.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { ensureBuilt, runCli, scratch } from './helpers.js';

const MODEL = 'claude-sonnet-4-5-20250929';
const tmp = scratch('loopledger-loop-shapes-');
const store = join(tmp.dir, 'store');
afterAll(() => tmp.cleanup());

type Call = { name: string; arguments: unknown };

/**
 * One canonical session: a user turn, then `n` identical rounds of `calls`, each with this usage
 * and the same answers (errors when `failing`); a new user turn every `turn` rounds.
 */
function looping(id: string, calls: Call[], n: number, usage: { input: number; output: number }, failing = false, turn = n): string {
  const records: unknown[] = [
    { type: 'session', schema: 'loopledger-canonical/1', id, parent: null, model: MODEL },
    { type: 'user', text: 'make the tests pass' },
  ];
  let c = 0;
  for (let r = 0; r < n; r++) {
    if (r > 0 && r % turn === 0) records.push({ type: 'user', text: 'try again' });
    const ids = calls.map(() => `${id}-c${++c}`);
    records.push({ type: 'assistant', text: '', tool_calls: calls.map((call, i) => ({ id: ids[i], ...call })), usage });
    for (const cid of ids) records.push({ type: 'tool_result', id: cid, content: '1 failed, 41 passed', is_error: failing });
  }
  return records.map((x) => JSON.stringify(x)).join('\n') + '\n';
}

const calm = (id: string) =>
  [
    { type: 'session', schema: 'loopledger-canonical/1', id, parent: null, model: MODEL },
    { type: 'user', text: 'list the files' },
    { type: 'assistant', text: 'Here they are.', usage: { input: 100, output: 10 } },
  ]
    .map((x) => JSON.stringify(x))
    .join('\n') + '\n';

/**
 * File names for the two `npm test` sessions that land in different shards of 3, so that the
 * merge has to add one shape up across shards (the split is the path's hash: SPEC "Past one machine").
 */
function splitNames(): [string, string] {
  for (let i = 0; ; i++) {
    const a = `npm-a${i}.jsonl`;
    const b = `npm-b${i}.jsonl`;
    if (shardOf(shardKey(join(store, a), store), 3) !== shardOf(shardKey(join(store, b), store), 3)) return [a, b];
  }
}

beforeAll(() => {
  ensureBuilt();
  const [a, b] = splitNames();
  // The same loop, written two ways: one shape, `Bash(npm test)`. npm-a's calls fail, in two turns
  // of two rounds: a strike on rounds 2 and 4 (the user's turn breaks the run), and a recurring
  // failure on rounds 3 and 4 (SPEC 0.2: "the same tool answered with the same error three or
  // more times in one session, across user turns"). Round 4 carries both: counted once.
  tmp.write(join('store', a), looping('npm-a', [{ name: 'Bash', arguments: { command: 'npm test -- --run src/parser.test.ts', description: 'Run the failing test' } }], 4, { input: 1000, output: 100 }, true, 2));
  tmp.write(join('store', b), looping('npm-b', [{ name: 'Bash', arguments: { command: 'cd /repo && npm test 2>&1 | tail -5' } }], 3, { input: 2000, output: 200 }));
  // Another program in the same tool: another loop.
  tmp.write(join('store', 'pytest-d.jsonl'), looping('pytest-d', [{ name: 'Bash', arguments: { command: 'pytest -x tests' } }], 3, { input: 1000, output: 100 }));
  // Two loops of the same cost: the order between them is the shape's.
  tmp.write(join('store', 'read-c.jsonl'), looping('read-c', [{ name: 'Read', arguments: { file_path: '/repo/a.ts' } }], 3, { input: 500, output: 50 }));
  tmp.write(join('store', 'grep-e.jsonl'), looping('grep-e', [{ name: 'Grep', arguments: { pattern: 'parse', path: 'src' } }], 3, { input: 500, output: 50 }));
  for (let i = 0; i < 3; i++) tmp.write(join('store', `calm-${i}.jsonl`), calm(`calm-${i}`));
});

async function ledger(...args: string[]): Promise<LedgerReport> {
  const r = await runCli([store, '--format', 'json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as LedgerReport;
}

// Seed 000 with max_strikes 2: the 2nd identical call with the same answers is a strike, the 3rd
// is the loop (a stop), and a 4th after it is still reported (after the stop). So `n` identical
// rounds in one turn give findings on rounds 2..n: n - 1 rounds of the loop; the first call was
// work. npm-a (above) has findings on rounds 2, 3 and 4.
const round = (input: number, output: number) => ({ tokens: input + output, usd: (input * 3 + output * 15) / 1e6 });
const npmA = round(1000, 100); // 1,100 tokens, $0.0045 a round; 3 rounds
const npmB = round(2000, 200); // 2,200 tokens, $0.009 a round; 2 rounds
const small = round(500, 50); // 550 tokens, $0.00225 a round; 2 rounds

describe('summary.loop_shapes in --format json', () => {
  it('adds one loop up over the sessions it recurs in, worst first, ties by shape', async () => {
    const shapes = (await ledger()).summary.loop_shapes!;
    const close = (x: number | null) => (x === null ? null : Math.round(x * 1e9) / 1e9);
    expect(shapes.map((l) => ({ ...l, usd: close(l.usd), example: { ...l.example, usd: close(l.example.usd), path: l.example.path.slice(store.length + 1) } }))).toEqual([
      {
        shape: 'Bash(npm test)',
        detector: 'tool_batch',
        kind: 'repeated_batch',
        sessions: 2,
        rounds: 3 + 2,
        tokens: 3 * npmA.tokens + 2 * npmB.tokens,
        usd: close(3 * npmA.usd + 2 * npmB.usd),
        // npm-b's loop cost $0.018 against npm-a's $0.0135.
        example: { id: 'npm-b', path: expect.stringMatching(/^npm-b\d+\.jsonl$/), project: null, rounds: 2, tokens: 2 * npmB.tokens, usd: close(2 * npmB.usd) },
      },
      {
        shape: 'Bash(pytest)',
        detector: 'tool_batch',
        kind: 'repeated_batch',
        sessions: 1,
        rounds: 2,
        tokens: 2 * npmA.tokens,
        usd: close(2 * npmA.usd),
        example: { id: 'pytest-d', path: 'pytest-d.jsonl', project: null, rounds: 2, tokens: 2 * npmA.tokens, usd: close(2 * npmA.usd) },
      },
      ...['Grep', 'Read'].map((shape) => ({
        shape,
        detector: 'tool_batch',
        kind: 'repeated_batch',
        sessions: 1,
        rounds: 2,
        tokens: 2 * small.tokens,
        usd: close(2 * small.usd),
        example: { id: `${shape.toLowerCase()}-${shape === 'Grep' ? 'e' : 'c'}`, path: `${shape.toLowerCase()}-${shape === 'Grep' ? 'e' : 'c'}.jsonl`, project: null, rounds: 2, tokens: 2 * small.tokens, usd: close(2 * small.usd) },
      })),
    ]);
  });

  it("each entry names its shape, so a downstream tool can group the ndjson lines the same way", async () => {
    const r = await runCli([store, '--format', 'ndjson']);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { session: string; round: number; kind: string; shape?: string });
    // npm-a's round 4 carries two findings of one shape (see above).
    expect(lines.filter((l) => l.session === 'npm-a').map((l) => `${l.round} ${l.kind}`)).toEqual(['2 repeated_batch', '3 recurring_failure', '4 repeated_batch', '4 recurring_failure']);
    const bySession = new Map(lines.map((l) => [l.session, l.shape]));
    expect(Object.fromEntries(bySession)).toEqual({ 'npm-a': 'Bash(npm test)', 'npm-b': 'Bash(npm test)', 'pytest-d': 'Bash(pytest)', 'read-c': 'Read', 'grep-e': 'Grep' });
  });

  it('a text finding is its kind, apart from the tools', async () => {
    const text = [
      { type: 'session', schema: 'loopledger-canonical/1', id: 'chant', parent: null, model: MODEL },
      { type: 'user', text: 'explain' },
      ...Array.from({ length: 4 }, () => ({ type: 'assistant', text: 'I will check the configuration again.', usage: { input: 100, output: 10 } })),
    ];
    const file = tmp.write('text/chant.jsonl', text.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const r = await runCli([file, '--format', 'json']);
    const report = JSON.parse(r.stdout) as LedgerReport;
    // SPEC 0.2: "text-only responses of one turn, identical after normalization, three in a row".
    const kinds = new Set(report.sessions[0]!.entries.map((e) => e.kind));
    expect(kinds.has('repeated_response')).toBe(true);
    const rows = report.summary.loop_shapes!;
    expect(rows.map((l) => l.detector)).toEqual(rows.map(() => 'output'));
    for (const l of rows) expect(l.shape).toBe(l.kind);
    expect(rows.find((l) => l.kind === 'repeated_response')).toMatchObject({ sessions: 1, example: { id: 'chant' } });
  });
});

describe('merge adds them up', () => {
  it('the shards of the corpus, merged, give the one run\'s loop shapes (the npm test loop split across two shards)', async () => {
    const one = await ledger();
    const files: string[] = [];
    const parts: LedgerReport[] = [];
    for (let k = 1; k <= 3; k++) {
      const out = join(tmp.dir, 'shards', `${k}.json`);
      const r = await runCli([store, '--shard', `${k}/3`, '--format', 'json', '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      files.push(out);
      parts.push(JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(out, 'utf8'))) as LedgerReport);
    }
    // Not vacuous: no shard alone has the whole npm test loop.
    const npm = (r: LedgerReport) => r.summary.loop_shapes!.find((l) => l.shape === 'Bash(npm test)')?.sessions ?? 0;
    expect(parts.map(npm).sort()).toEqual([0, 1, 1]);
    const merged = await runCli(['merge', ...files, '--format', 'json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect((JSON.parse(merged.stdout) as LedgerReport).summary.loop_shapes).toEqual(one.summary.loop_shapes);
    expect(merged.stdout).toBe((await runCli([store, '--format', 'json'])).stdout);
  });
});

describe('the human formats show the top few', () => {
  const block = (stdout: string) => {
    const lines = stdout.split('\n');
    const start = lines.findIndex((l) => l.startsWith('Loops that cost the most'));
    const end = lines.indexOf('', start);
    return lines.slice(start, end);
  };

  it('the overview opens with them, and at 80 columns the table fits without cutting a loop', async () => {
    const r = await runCli([store, '--top', '1'], { env: { COLUMNS: '80' } });
    expect(r.code, r.stderr).toBe(0);
    const b = block(r.stdout);
    expect(b[0]).toBe('Loops that cost the most');
    for (const l of b) expect([...l].length, l).toBeLessThanOrEqual(80);
    const rows = b.slice(b.findIndex((l) => l.startsWith('loop ')) + 1);
    expect(rows.map((l) => l.split(/\s{2,}/)[0])).toEqual(['Bash(npm test)', 'Bash(pytest)', 'Grep', 'Read']);
    // sessions, rounds, tokens, cost, worst session: 2 sessions, 5 rounds, 7.7k tokens, $0.03.
    expect(rows[0]).toMatch(/^Bash\(npm test\)\s+(repeated_batch\s+)?2\s+5\s+7\.7k\s+\$0\.03\s+npm-b$/);
    // The overview's sessions come after.
    expect(r.stdout.indexOf('Loops that cost the most')).toBeLessThan(r.stdout.search(/^enforce\s+session/m));
  });

  it('at 160 columns the kind of each loop shows too', async () => {
    const r = await runCli([store, '--top', '1'], { env: { COLUMNS: '160' } });
    const b = block(r.stdout);
    expect(b[2]).toMatch(/^loop\s+kind\s+sessions\s+rounds\s+tokens\s+cost\s+worst session$/);
    expect(b[3]).toMatch(/^Bash\(npm test\)\s+repeated_batch\s+2\s+5\s+7\.7k\s+\$0\.03\s+npm-b$/);
  });

  it('no overview (fewer sessions than --top): no such table', async () => {
    const r = await runCli([store, '--top', '100']);
    expect(r.stdout).not.toContain('Loops that cost the most');
  });

  it('markdown: a section before the overview', async () => {
    const r = await runCli([store, '--top', '1', '--format', 'markdown']);
    expect(r.stdout).toContain('### Loops that cost the most\n');
    expect(r.stdout).toContain('| Bash(npm test) | repeated\\_batch | 2 | 5 | 7.7k | \\$0.03 | npm-b |');
    expect(r.stdout.indexOf('### Loops that cost the most')).toBeLessThan(r.stdout.indexOf('| enforce |'));
  });

  it('html: a section before the overview, the worst session linked to its timeline', async () => {
    const r = await runCli([store, '--format', 'html']);
    const section = /<section id="loop-shapes">[\s\S]*?<\/section>/.exec(r.stdout)?.[0] ?? '';
    expect(section).toContain('<h2>Loops that cost the most</h2>');
    const first = /<tbody>\n<tr>(.*?)<\/tr>/.exec(section)?.[1] ?? '';
    expect(first).toContain('<td class="mono">Bash(npm test)</td>');
    const anchor = /<a href="#(s\d+)">npm-b<\/a>/.exec(first)?.[1];
    expect(anchor).toBeDefined();
    expect(r.stdout).toContain(`id="${anchor}" data-session-id="npm-b"`);
    expect(r.stdout.indexOf('<section id="loop-shapes">')).toBeLessThan(r.stdout.indexOf('<section id="overview">'));
  });
});
