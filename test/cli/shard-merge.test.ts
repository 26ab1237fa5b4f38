// `--shard K/N` then `loopledger merge`: the shards' JSON ledgers add up to exactly what one run
// over everything prints, byte for byte, in every output format, with the same exit code; and what
// cannot be added up (another schema, another configuration, a shard twice or missing, a file that
// two ledgers disagree about) is refused with exit 2, naming the difference.
//
// The one run is the goldens (test/golden/golden.test.ts pins that the binary prints exactly them)
// but for the page, which the binary prints here; N = 3 goes through the binary; N = 1, 7 and 128
// (more shards than files) are made with the library's audit(), as the binary makes them, and
// merged by the binary once (JSON) and by the CLI in this process for the other formats. That the
// binary prints every format of a merge of its own 3 shards is test/golden/shards.test.ts's (every
// golden case), so a process per format per N here would prove nothing more.

import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { loadConfig } from '../../src/config/load.js';
import { REPORT_FORMATS, type ReportFormat } from '../../src/vocabulary.js';
import { renderReport } from '../../src/report/index.js';
import { shardKey, shardOf } from '../../src/read/shard.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { CASES } from '../golden/cases.js';
import { runMain } from '../robustness/helpers.js';
import { cliEnv, ensureBuilt, ROOT, runCli, scratch, type RunResult } from './helpers.js';

const tmp = scratch('loopledger-shard-merge-');
afterAll(() => tmp.cleanup());

const FIXTURES = 'fixtures';

function ok(r: RunResult, code = 0): RunResult {
  expect(r.code, `exit ${r.code}, stderr: ${r.stderr}`).toBe(code);
  return r;
}

/** Shard ledgers written as the binary writes `--format json`, made with the library. */
async function shardsInProcess(paths: string[], count: number, dir: string): Promise<string[]> {
  const config = (await loadConfig({})).values;
  const files: string[] = [];
  for (let k = 1; k <= count; k++) {
    // As the CLI makes a shard's JSON ledger: with each session's timeline, for merge --format html.
    const report = await audit(paths, { config, shard: { index: k, count }, pricing: { overrides: null }, jobs: 1, timeline: true });
    files.push(tmp.write(join(dir, `shard-${k}.json`), await renderReport(report, 'json')));
  }
  return files;
}

/** One run over the fixtures in a format: what it prints and exits with, and the flags and environment it was printed with. */
interface OneRun {
  stdout: string;
  code: number;
  render: string[];
  env: Record<string, string>;
}

/**
 * The golden that is the one run in each format. The page's golden asks for --excerpts, which
 * shards would have to be made with, so the page's one run is the binary's, here.
 */
const GOLDEN_OF: Record<Exclude<ReportFormat, 'html'>, string> = {
  table: 'fixtures.table-80.txt',
  json: 'fixtures.json',
  ndjson: 'fixtures.ndjson',
  markdown: 'fixtures.markdown.md',
  junit: 'fixtures.junit.xml',
  sarif: 'fixtures.sarif.json',
  github: 'fixtures.github.txt',
  otlp: 'fixtures.otlp.jsonl',
};

const one = new Map<ReportFormat, OneRun>();

beforeAll(async () => {
  ensureBuilt();
  const data = join(ROOT, 'test/golden/data');
  const outcomes = JSON.parse(readFileSync(join(data, 'outcomes.json'), 'utf8')) as Record<string, { exit: number }>;
  for (const [format, name] of Object.entries(GOLDEN_OF) as [ReportFormat, string][]) {
    const c = CASES.find((g) => g.name === name)!;
    // The golden's flags after the path are all about printing (no --excerpts, --scope, --set…), so a merge takes them as they are.
    expect(c.args[0]).toBe(FIXTURES);
    one.set(format, { stdout: readFileSync(join(data, name), 'utf8'), code: outcomes[name]!.exit, render: c.args.slice(1), env: c.env ?? {} });
  }
  const page = await runCli([FIXTURES, '--format', 'html']);
  one.set('html', { stdout: page.stdout, code: page.code ?? -1, render: ['--format', 'html'], env: {} });
}, 600_000);

describe('shards of the fixtures, merged, are the one run', () => {
  let cliShards: string[] = [];

  beforeAll(async () => {
    for (let k = 1; k <= 3; k++) {
      const out = join(tmp.dir, 'cli3', `shard-${k}.json`);
      ok(await runCli([FIXTURES, '--shard', `${k}/3`, '--format', 'json', '-o', out]));
      cliShards.push(out);
    }
  }, 600_000);

  it('the binary splits the fixtures into 3 disjoint shards whose inputs are all of them', () => {
    const whole = JSON.parse(one.get('json')!.stdout) as LedgerReport;
    const parts = cliShards.map((f) => JSON.parse(readFileSync(f, 'utf8')) as LedgerReport);
    const paths = parts.flatMap((p) => p.inputs.map((i) => i.path));
    expect(paths.sort()).toEqual(whole.inputs.map((i) => i.path).sort());
    expect(new Set(paths).size).toBe(paths.length);
    expect(parts.map((p) => p.shard)).toEqual([1, 2, 3].map((index) => ({ index, count: 3 })));
    // The split is the documented hash of each path relative to the path given.
    for (const [k, p] of parts.entries()) for (const i of p.inputs) expect(shardOf(shardKey(i.path, FIXTURES), 3)).toBe(k + 1);
    // A session and its sub-agents stay together.
    const withSub = parts.find((p) => p.sessions.some((s) => s.id.startsWith('b4e8a2f6') && s.parent === null))!;
    expect(withSub.sessions.some((s) => s.parent === 'b4e8a2f6-19c3-4d7e-a05b-6f2c8d1e3a97')).toBe(true);
  });

  it.each([1, 7, 128])('N = %i: every format of the merge = one run, byte for byte', async (n) => {
    const files = await shardsInProcess([FIXTURES], n, `n${n}`);
    if (n === 128) {
      // More shards than files: some shards are empty ledgers, and they merge like the others.
      const empty = files.filter((f) => (JSON.parse(readFileSync(f, 'utf8')) as LedgerReport).inputs.length === 0);
      expect(empty.length).toBeGreaterThan(0);
    }
    const binary = await runCli(['merge', ...files, '--format', 'json']);
    expect(binary.code, binary.stderr).toBe(0);
    expect(binary.stdout).toBe(one.get('json')!.stdout);
    for (const format of REPORT_FORMATS) {
      // The binary's environment (no colour, the pinned SOURCE_DATE_EPOCH) and the one run's width, so the outputs compare.
      const whole = one.get(format)!;
      const merged = await runMain(['merge', ...files, ...whole.render], { env: cliEnv(whole.env), timeoutMs: 300_000 });
      expect(merged.code, `${format}: ${merged.stderr}`).toBe(whole.code);
      expect(merged.stdout, format).toBe(whole.stdout);
    }
  }, 600_000);

  it('the order of the files given to merge does not matter', async () => {
    const merged = ok(await runCli(['merge', cliShards[2]!, cliShards[0]!, cliShards[1]!, '--json']));
    expect(merged.stdout).toBe(one.get('json')!.stdout);
  });

  it('--fail-on: the merge gates as one run does (exit 1, the same count on stderr)', async () => {
    const whole = await runCli([FIXTURES, '--fail-on', 'stop', '--format', 'json']);
    const merged = await runCli(['merge', ...cliShards, '--fail-on', 'stop', '--format', 'json']);
    expect(whole.code).toBe(1);
    expect(merged.code).toBe(1);
    expect(merged.stdout).toBe(whole.stdout);
    const count = /(\d+ sessions?) reached --fail-on stop/.exec(whole.stderr)![1];
    expect(merged.stderr).toContain(`${count} reached --fail-on stop`);
  });

  it('--top and --sort reach the merged table as they reach one run', async () => {
    const whole = await runCli([FIXTURES, '--top', '3', '--sort', 'cost']);
    const merged = await runCli(['merge', ...cliShards, '--top', '3', '--sort', 'cost']);
    expect(merged.stdout).toBe(whole.stdout);
  });
});

describe('exit codes and inputs that are no transcripts survive the split', () => {
  it('an unreadable path, a malformed line and a file that is no transcript: same ledger, same exit codes', async () => {
    const dir = join(tmp.dir, 'bad');
    tmp.write('bad/a/ok.jsonl', readFileSync('fixtures/openai/looping-leap-day.jsonl', 'utf8'));
    tmp.write('bad/a/broken.jsonl', `${readFileSync('fixtures/canonical/sessions.jsonl', 'utf8').trimEnd()}\n{not json\n`);
    tmp.write('bad/a/settings.json', '{"theme": "dark"}\n');
    tmp.write('bad/b/calm.json', readFileSync('fixtures/openai/calm-weather.json', 'utf8'));
    const missing = join(tmp.dir, 'bad', 'missing');
    for (const strict of [[], ['--strict']]) {
      const whole = await runCli([dir, missing, '--format', 'json', ...strict]);
      expect(whole.code).toBe(2);
      const files: string[] = [];
      for (let k = 1; k <= 3; k++) {
        const out = join(tmp.dir, 'bad-shards', `${strict.length}-${k}.json`);
        const r = await runCli([dir, missing, '--shard', `${k}/3`, '--format', 'json', '-o', out, ...strict]);
        expect([0, 2]).toContain(r.code);
        files.push(out);
      }
      const merged = await runCli(['merge', ...files, '--format', 'json', ...strict]);
      expect(merged.code).toBe(2);
      expect(merged.stdout).toBe(whole.stdout);
      expect(merged.stderr).toContain('missing: no such file or directory');
    }
  });

  it('an empty shard with --fail-on exits 0 with an empty ledger; merge --fail-on of nothing fails closed', async () => {
    const file = tmp.write('lonely/only.jsonl', readFileSync('fixtures/openai/looping-leap-day.jsonl', 'utf8'));
    const dir = join(file, '..');
    const owner = shardOf('only.jsonl', 4);
    const other = owner === 4 ? 1 : owner + 1;
    const out = join(tmp.dir, 'lonely-empty.json');
    const empty = ok(await runCli([dir, '--shard', `${other}/4`, '--fail-on', 'stop', '--format', 'json', '-o', out]));
    expect(empty.stderr).toBe('');
    const ledger = JSON.parse(readFileSync(out, 'utf8')) as LedgerReport;
    expect(ledger).toMatchObject({ inputs: [], sessions: [], shard: { index: other, count: 4 }, summary: { sessions: 0 } });
    const single = join(tmp.dir, 'lonely-single.json');
    ok(await runCli([dir, '--shard', '1/1', '--format', 'json', '-o', single]));
    const noShard = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    delete noShard['shard'];
    const nothing = tmp.write('lonely-nothing.json', JSON.stringify(noShard));
    const r = await runCli(['merge', nothing, '--fail-on', 'stop']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--fail-on stop: the merged ledgers hold no session; a gate on nothing fails closed');
  });
});

describe('merge refuses what does not add up (exit 2, naming the difference)', () => {
  let a: string;
  let b: string;
  beforeAll(async () => {
    a = join(tmp.dir, 'refuse', 'a.json');
    b = join(tmp.dir, 'refuse', 'b.json');
    ok(await runCli([FIXTURES, '--shard', '1/2', '--format', 'json', '-o', a]));
    ok(await runCli([FIXTURES, '--shard', '2/2', '--format', 'json', '-o', b]));
  }, 600_000);

  function edited(name: string, edit: (j: Record<string, unknown>) => void, from = b): string {
    const j = JSON.parse(readFileSync(from, 'utf8')) as Record<string, unknown>;
    edit(j);
    return tmp.write(join('refuse', name), JSON.stringify(j, null, 2));
  }

  async function refused(args: string[], message: RegExp): Promise<void> {
    const r = await runCli(['merge', ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }

  it('another schema version', async () => {
    await refused([a, edited('schema.json', (j) => (j['schema'] = 'loopledger/2'))], /has schema loopledger\/1 but .*schema\.json has loopledger\/2: ledgers of different schema versions/);
  });

  it('another configuration, naming the keys and values that differ', async () => {
    const c = join(tmp.dir, 'refuse', 'c.json');
    ok(await runCli([FIXTURES, '--shard', '2/2', '--format', 'json', '-o', c, '--set', 'tool_batch.max_strikes=3']));
    await refused([a, c], /different configurations \(config_hash [0-9a-f]{16} vs [0-9a-f]{16}\): tool_batch\.max_strikes 2 vs 3/);
  });

  it('a config edited by hand (its hash no longer matches)', async () => {
    await refused([a, edited('hand.json', (j) => ((j['config'] as Record<string, unknown>)['tool_batch.max_strikes'] = 5))], /config_hash [0-9a-f]{16} does not match its config/);
  });

  it('another loopledger version, or other prices', async () => {
    await refused([a, edited('version.json', (j) => ((j['tool'] as Record<string, unknown>)['version'] = '9.9.9'))], /differ in tool version: "[^"]+" vs "9\.9\.9"/);
    await refused([a, edited('prices.json', (j) => ((j['pricing'] as Record<string, unknown>)['overrides'] = 'prices.json'))], /differ in pricing/);
  });

  it('the same shard twice, a shard missing, shards of different counts, a shard beside a whole run', async () => {
    const copy = join(tmp.dir, 'refuse', 'a-copy.json');
    copyFileSync(a, copy);
    await refused([a, copy, b], /shard 1\/2 is given twice: .*a\.json and .*a-copy\.json/);
    await refused([a], /shard 2\/2 missing: a merge without it is not the whole run/);
    await refused([a, edited('count.json', (j) => (j['shard'] = { index: 2, count: 3 }))], /shards of different counts/);
    await refused([a, edited('whole.json', (j) => delete j['shard'])], /holds no shard while .* holds shard 1\/2/);
  });

  it('the same file in two ledgers: counted once when they agree, refused naming both when they do not', async () => {
    const whole = join(tmp.dir, 'refuse', 'openai.json');
    const part = join(tmp.dir, 'refuse', 'looping.json');
    ok(await runCli(['fixtures/openai', '--format', 'json', '-o', whole]));
    ok(await runCli(['fixtures/openai/looping-leap-day.jsonl', '--format', 'json', '-o', part]));
    // Overlapping runs: the file is the same content in both, so it counts once (issue 27.16).
    const merged = ok(await runCli(['merge', whole, part, '--json']));
    expect(merged.stdout).toBe(readFileSync(whole, 'utf8'));
    expect(merged.stderr).toMatch(/fixtures\/openai\/looping-leap-day\.jsonl is in both .*openai\.json and .*looping\.json: the same content, counted once/);
    const other = edited('looping-other.json', (j) => ((j['sessions'] as Record<string, unknown>[])[0]!['model'] = 'another-model'), part);
    await refused([whole, other], /fixtures\/openai\/looping-leap-day\.jsonl is in both .*openai\.json and .*looping-other\.json, and they disagree about it \(session [^:]+: model\)/);
  });

  it('ndjson, a sweep beside a ledger, no JSON at all, a file that is not there', async () => {
    const nd = join(tmp.dir, 'refuse', 'entries.ndjson');
    writeFileSync(nd, one.get('ndjson')!.stdout);
    await refused([nd], /ndjson holds entries only .*merge the --format json ledgers/);
    const sweep = join(tmp.dir, 'refuse', 'sweep.json');
    ok(await runCli(['sweep', 'fixtures/openai', '--param', 'tool_batch.max_strikes=2:3:1', '--json', '-o', sweep]));
    await refused([a, sweep], /is a sweep \(loopledger\/sweep\/1\) but .*a\.json is not/);
    await refused([tmp.write('refuse/text.json', 'hello')], /not JSON/);
    await refused([join(tmp.dir, 'refuse', 'nowhere.json')], /nowhere\.json: cannot read: no such file/);
    await refused([tmp.write('refuse/other.json', '{"schema": "something/else"}')], /schema something\/else cannot be merged/);
  });

  it('an output file that is one of the ledgers merged', async () => {
    const r = await runCli(['merge', a, b, '-o', a]);
    expect(r.code).toBe(2);
  });
});

describe('sweep --format json partials, merged, are the one sweep', () => {
  const SWEEP = [FIXTURES, '--param', 'tool_batch.max_strikes=1:4:1', '--labels', 'fixtures/.labels.json', '--max-fpr', '0.1'];

  // The one sweep, json and table, made once for both N.
  let whole: Promise<[RunResult, RunResult]> | undefined;
  const oneSweep = () => (whole ??= Promise.all([runCli(['sweep', ...SWEEP, '--json']), runCli(['sweep', ...SWEEP])]));

  it.each([3, 7])('N = %i, with labels (file-name labels cover sessions in several shards): json and table', async (n) => {
    const [json, table] = await oneSweep();
    ok(json);
    ok(table);
    const files: string[] = [];
    for (let k = 1; k <= n; k++) {
      const out = join(tmp.dir, `sweep${n}`, `${k}.json`);
      const args = ['sweep', ...SWEEP, '--shard', `${k}/${n}`, '--json', '-o', out];
      // N = 3 shows the binary writes a sweep's partials; N = 7's are written by the CLI in this process.
      const r = n === 3 ? await runCli(args) : await runMain(args, { env: cliEnv(), timeoutMs: 300_000 });
      expect(r.code, r.stderr).toBe(0);
      files.push(out);
    }
    // Each partial alone misses most labels: the merge must recount them, not add the counts.
    const partial = JSON.parse(readFileSync(files[0]!, 'utf8')) as { labels: { unmatched: string[] } };
    expect(partial.labels.unmatched.length).toBeGreaterThan(0);
    const merged = ok(await runCli(['merge', ...files, '--json']));
    expect(merged.stdout).toBe(json.stdout);
    const mergedTable = ok(await runCli(['merge', ...files]));
    expect(mergedTable.stdout).toBe(table.stdout);
  }, 600_000);

  it('refuses partials of different sweeps, and a format a sweep does not have', async () => {
    const p = join(tmp.dir, 'sweep-x', '1.json');
    const q = join(tmp.dir, 'sweep-x', '2.json');
    ok(await runCli(['sweep', 'fixtures/openai', '--param', 'tool_batch.max_strikes=1:2:1', '--shard', '1/2', '--json', '-o', p]));
    ok(await runCli(['sweep', 'fixtures/openai', '--param', 'tool_batch.max_strikes=1:3:1', '--shard', '2/2', '--json', '-o', q]));
    const r = await runCli(['merge', p, q]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/differ in swept parameters/);
    const s = await runCli(['merge', p, '--format', 'sarif']);
    expect(s.code).toBe(2);
  });
});

describe('a shard carries what the merged page draws', () => {
  // The binary's one shard of the fixtures, written once for both tests.
  const out = join(tmp.dir, 'timeline', 'shard-1.json');
  beforeAll(async () => {
    ok(await runCli([FIXTURES, '--shard', '1/1', '--format', 'json', '-o', out]));
  }, 600_000);

  it("a shard's JSON ledger holds each session's timeline; the merged JSON, like one run's, does not", async () => {
    const shard = JSON.parse(readFileSync(out, 'utf8')) as LedgerReport;
    expect(shard.sessions.length).toBeGreaterThan(0);
    for (const s of shard.sessions) {
      expect(s.timeline, s.id).toBeDefined();
      expect(s.timeline!.turn_starts[0]?.[1], s.id).toBe(1);
    }
    const merged = ok(await runCli(['merge', out, '--json']));
    expect(merged.stdout).not.toContain('"timeline"');
    expect(merged.stdout).toBe(one.get('json')!.stdout);
  });

  it('a timeline edited by hand is refused, naming the session (exit 2)', async () => {
    const shard = JSON.parse(readFileSync(out, 'utf8')) as { sessions: { timeline: unknown }[] };
    shard.sessions[1]!.timeline = { turn_starts: [['1', '<script>']], turn_starts_more: 0, spend: [] };
    const bad = tmp.write(join('timeline', 'edited.json'), JSON.stringify(shard));
    const r = await runCli(['merge', bad, '--format', 'html']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('edited.json: sessions[1].timeline.turn_starts[0][0]: expected an integer ≥ 0, got "1"');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('sweep partials merge into the sweep page', () => {
  it('merge --format html of two sweep partials = the one sweep page, byte for byte', async () => {
    const args = ['fixtures/openai', '--param', 'tool_batch.max_strikes=1:3:1'];
    const whole = ok(await runCli(['sweep', ...args, '--format', 'html']));
    const parts: string[] = [];
    for (const k of [1, 2]) {
      const p = join(tmp.dir, 'sweep-html', `${k}.json`);
      ok(await runCli(['sweep', ...args, '--shard', `${k}/2`, '--json', '-o', p]));
      parts.push(p);
    }
    const merged = ok(await runCli(['merge', ...parts, '--format', 'html']));
    expect(merged.stdout).toContain('<svg');
    expect(merged.stdout).toBe(whole.stdout);
  });
});
