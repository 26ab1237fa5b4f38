// Issue 26, "Small frictions a user meets in the first runs", each as the user met it, through the
// built binary: the overview's empty project column, ambiguous session names, a screenful of
// identical notes, `loopledger judge` read as a path, sweep naming every non-transcript, `formats`
// and `config` past the terminal's width, and four slips of wording.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/report/text.js';
import { ensureBuilt, runCli, scratch } from './helpers.js';

const tmp = scratch('loopledger-first-runs-');
afterAll(() => tmp.cleanup());
beforeAll(() => ensureBuilt());

/** A canonical session whose one tool batch fails the same way `n` times; usage on the first `priced` rounds. */
function loopingSession(id: string, n = 4, priced = n, model = 'gpt-4o-2024-08-06'): string {
  const lines: unknown[] = [
    { type: 'session', schema: 'loopledger-canonical/1', id, parent: null, model },
    { type: 'user', text: 'Make the date test pass.' },
  ];
  for (let i = 0; i < n; i += 1) {
    const usage = i < priced ? { usage: { input: 1200, output: 40, reasoning: 0 } } : {};
    lines.push({ type: 'assistant', text: '', tool_calls: [{ id: `c${i}`, name: 'run_tests', arguments: { path: 'tests/' } }], ...usage });
    lines.push({ type: 'tool_result', id: `c${i}`, content: '1 failed, 41 passed', is_error: true });
  }
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

const overviewHead = (stdout: string) => stdout.split('\n').find((l) => l.startsWith('enforce '))!;
const overviewRows = (stdout: string) => {
  const lines = stdout.split('\n');
  const head = lines.findIndex((l) => l.startsWith('enforce '));
  const rule = lines.findIndex((l, i) => i > head && l.startsWith('─'));
  return lines.slice(head + 1, rule);
};
const widest = (text: string) => Math.max(...text.split('\n').map(displayWidth));

describe('the overview', () => {
  const codexCalm = 'fixtures/codex/rollout-2026-02-21T10-02-47-0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15.jsonl';
  const codexLoop = 'fixtures/codex/rollout-2026-02-20T16-41-09-0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37.jsonl';
  const noProject = ['fixtures/claude-code/looping-test-fix.jsonl', 'fixtures/gemini/session-2026-03-02T10-15-6f1c2d3e.jsonl'];

  it('drops the project column when no listed row has a project, even if a calm session has one', async () => {
    const r = await runCli([...noProject, codexCalm, '--top', '1'], { env: { COLUMNS: '160' } });
    expect(r.code).toBe(0);
    expect(overviewRows(r.stdout)).toHaveLength(2);
    // (The started column stands where sessions have times.)
    expect(overviewHead(r.stdout)).toMatch(/^enforce +session +(started +)?model/);
    expect(overviewHead(r.stdout)).not.toContain('project');
  });

  it('keeps it when a listed row has one', async () => {
    const r = await runCli([...noProject, codexLoop, '--top', '1'], { env: { COLUMNS: '160' } });
    expect(overviewHead(r.stdout)).toMatch(/^enforce +project +session/);
    expect(r.stdout).toContain('/home/dana/src/ledgerd');
  });

  it('names two runs whose ids share a long start apart, at 80 and at 160 columns', async () => {
    const a = tmp.write('swe/a.jsonl', loopingSession('ohc_claude35_django__django-11099'));
    const b = tmp.write('swe/b.jsonl', loopingSession('ohc_claude35_django__django-11133'));
    // A fifth of the width: 16 columns at 80, 24 at 160.
    for (const [columns, names] of [['80', ['ohc_claude…11099', 'ohc_claude…11133']], ['160', ['ohc_claude35_dj…go-11099', 'ohc_claude35_dj…go-11133']]] as const) {
      const r = await runCli([a, b, noProject[0]!, '--top', '1'], { env: { COLUMNS: columns } });
      const rows = overviewRows(r.stdout);
      for (const name of names) expect(rows.filter((l) => l.includes(name))).toHaveLength(1);
      expect(widest(r.stdout.split('\n\n').slice(0, 2).join('\n'))).toBeLessThanOrEqual(Number(columns));
    }
  });

  it('one session copied into two folders: the folders tell the rows apart', async () => {
    const text = loopingSession('7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5');
    const a = tmp.write('backup/s.jsonl', text);
    const b = tmp.write('live/s.jsonl', text);
    const r = await runCli([a, b, '--top', '1'], { env: { COLUMNS: '160' } });
    const rows = overviewRows(r.stdout);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('backup/s.jsonl:7c2d41e9');
    expect(rows[1]).toContain('live/s.jsonl:7c2d41e9');
  });

  it('"saved 2 rounds, – tokens": an unknown figure is left out of the sentence; one session "follows", not "the first 1 follow"', async () => {
    const r = await runCli(['fixtures/swe-agent', '--top', '1'], { env: { COLUMNS: '120' } });
    // the stop's two prevented rounds: the fourth rerun (saved) and new work after it (cut)
    expect(r.stdout).toContain('\nEnforce would have saved 1 round and cut 1 round of new work\n');
    expect(r.stdout).not.toContain('– tokens');
    const two = await runCli(['fixtures/swe-agent', 'fixtures/mini-swe-agent', '--top', '1']);
    expect(two.stdout).toContain('The first follows in full; --top N shows N, --top 0 every session.');
  });
});

describe('a session table', () => {
  // "one session fills 24 rows with identical `recurring_phrase 0.30` notes"
  it('shows a run of identical notes as one row with their count and the rounds they span', async () => {
    const file = 'fixtures/calibration/openai/clean-narrated-edits.jsonl';
    const r = await runCli([file], { env: { COLUMNS: '160' } });
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('│') && !l.includes('detector'));
    expect(rows).toHaveLength(1);
    // No Off column: Off runs nothing, so it would say none on every row (the legend says so).
    expect(rows[0]).toMatch(/^│ +1 │ +5–8 │ output +│ recurring_phrase ×4 │ +0\.30 │ +│ noted +│ noted +│$/);
    expect(r.stdout).toContain('Off (not shown) runs nothing');
    // The ledger itself keeps every entry.
    expect(r.stdout).toContain('1 session · 4 findings ·');
    const json = JSON.parse((await runCli([file, '--json'])).stdout) as { sessions: { entries: unknown[] }[] };
    expect(json.sessions[0]!.entries).toHaveLength(4);
  });

  // SPEC 0.4: "The table collapses a run of the same finding of one session into one row (`rounds`
  // first–last, `count`); `--all` lists every entry."
  it('folds a loop that escalates into one row with its strikes, the level it reached and where; --all lists each', async () => {
    const r = await runCli(['fixtures/claude-code/looping-test-fix.jsonl'], { env: { COLUMNS: '160' } });
    const rows = r.stdout.split('\n').filter((l) => l.includes('repeated_batch'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/│ +2–4\* │ tool +│ repeated_batch ×3 +│ Bash\(npx vitest run …\/totals\.test\.ts\) \+ Read\(…\/totals\.ts\) +│ .*│ 2–4× \(max 2\) +│ noted +│ stop r3 +│/);
    const all = await runCli(['fixtures/claude-code/looping-test-fix.jsonl', '--all'], { env: { COLUMNS: '160' } });
    expect(all.stdout.split('\n').filter((l) => l.includes('repeated_batch'))).toHaveLength(3);
    expect(all.stdout).not.toMatch(/×\d+ │/);
  });

  it('at 80 columns the folded row fits too', async () => {
    const r = await runCli(['fixtures/calibration/openai/clean-narrated-edits.jsonl'], { env: { COLUMNS: '80' } });
    expect(r.stdout).toMatch(/│ +1 │ +5–8 │ out +│ recurring_phrase ×4 │/);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
  });
});

describe('a first word that is no command', () => {
  it('`loopledger judge` points at --set judge.* (exit 2), not at a missing file', async () => {
    const r = await runCli(['judge']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      "loopledger: 'judge' is no command, nor a file or directory: judge is configured with --set judge.KEY=VALUE " +
        '(loopledger runs/ --set judge.endpoint=URL --set judge.model=NAME); loopledger config lists the judge.* keys with their values\n',
    );
  });

  it('any section or key of the configuration likewise (tool-batch, mode)', async () => {
    expect((await runCli(['tool-batch'])).stderr).toContain('tool_batch is configured with --set tool_batch.KEY=VALUE');
    expect((await runCli(['mode'])).stderr).toContain('mode is configured with --set mode=VALUE; loopledger config lists its value');
  });

  it('another bare word is still read as a path, with the commands named', async () => {
    const r = await runCli(['runz']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^loopledger: 'runz' is read as a path: it is no command \(the commands are analyze, sweep, label, merge, config, hook, .*; loopledger --help\)\n/);
    expect(r.stderr).toContain('runz: no such file or directory');
  });

  it('help, a real command or an existing path gets no hint', async () => {
    expect((await runCli(['help'])).stderr).toBe('');
    expect((await runCli(['fixtures/claude-code/looping-test-fix.jsonl'])).stderr).not.toContain('is no command');
  });
});

describe('sweep over a folder with files that are no transcripts', () => {
  it('counts them on one line, as analyze does; --verbose names each', async () => {
    const dir = `${tmp.dir}/mixed`;
    tmp.write('mixed/run.jsonl', loopingSession('run-1'));
    tmp.write('mixed/settings.json', '{\n  "theme": "dark"\n}\n');
    tmp.write('mixed/todos.json', '{\n  "todos": []\n}\n');
    tmp.write('mixed/empty.json', '\n');
    const sweep = await runCli(['sweep', dir, '--param', 'tool_batch.max_strikes=2:3:1']);
    expect(sweep.code).toBe(0);
    const line = 'loopledger: 3 files found in the directories are not a transcript (2 no known format, 1 empty); --verbose lists them\n';
    expect(sweep.stderr).toBe(line);
    expect((await runCli([dir])).stderr).toBe(line);
    const verbose = await runCli(['sweep', dir, '--param', 'tool_batch.max_strikes=2:3:1', '--verbose']);
    expect(verbose.stderr.split('\n').filter((l) => l.includes(': not a transcript: '))).toHaveLength(3);
  });
});

describe('formats and config fit the terminal', () => {
  for (const columns of [80, 160]) {
    it(`formats at ${columns} columns: no line wider, and the names stay in their column`, async () => {
      const r = await runCli(['formats'], { env: { COLUMNS: String(columns) } });
      expect(r.code).toBe(0);
      expect(widest(r.stdout)).toBeLessThanOrEqual(columns);
      // It uses the room it has: a line within a few columns of the width.
      expect(widest(r.stdout)).toBeGreaterThan(columns - 20);
      expect(r.stdout).toMatch(/^claude-code {5}Claude Code session JSONL/);
      expect(r.stdout).toMatch(/\nswe-agent {7}SWE-agent/);
    });

    it(`config --verbose at ${columns} columns: no line wider`, async () => {
      const r = await runCli(['config', '--verbose', '--set', 'judge.endpoint=https://gateway.example.com/some/long/path/v1'], { env: { COLUMNS: String(columns) } });
      expect(r.code).toBe(0);
      expect(widest(r.stdout)).toBeLessThanOrEqual(columns);
      expect(widest(r.stdout)).toBeGreaterThan(columns - 20);
    });
  }
});

describe('wording', () => {
  it('"a JSON document that is has keys" reads "a JSON document that has keys"', async () => {
    const doc = tmp.write('doc.json', '{\n  "theme": "dark",\n  "font": 12\n}\n');
    const r = await runCli([doc]);
    expect(r.stderr).toContain('a JSON document that has keys "theme", "font"');
    expect(r.stderr).not.toContain('that is has');
    const arr = tmp.write('arr.json', '[\n  1,\n  2\n]\n');
    expect((await runCli([arr])).stderr).toContain('a JSON document that is an array of 2');
  });

  it('"1 of 4 rounds records no usage and is not counted" (one), "2 of 4 rounds record …" (more)', async () => {
    const one = tmp.write('usage-1.jsonl', loopingSession('usage-1', 4, 3));
    const two = tmp.write('usage-2.jsonl', loopingSession('usage-2', 4, 2));
    const r = JSON.parse((await runCli([one, two, '--json'])).stdout) as { sessions: { cost: { reason: string } }[] };
    expect(r.sessions.map((s) => s.cost.reason)).toEqual([
      '1 of 4 rounds records no usage and is not counted',
      '2 of 4 rounds record no usage and are not counted',
    ]);
  });

  it('a figure under a cent reads "under $0.01", never "about <$0.01" or "≈ <$0.01"', async () => {
    const r = await runCli(['fixtures/claude-code/looping-test-fix.jsonl'], { env: { COLUMNS: '200' } });
    expect(r.stdout).toContain('Enforce would have stopped 1 session, saved under $0.01 in 1 session (17.5k tokens in 1 round) and cut no new work');
    expect(r.stdout).toContain('Enforce would have saved 1 round, 17.5k tokens under $0.01');
    expect(r.stdout).not.toMatch(/<\$0\.01/);
  });
});
