// Issue 6 through the built binary: every --format as a consumer reads it, --output-file, and the
// exit codes CI relies on. Repo fixtures where they suffice; generated transcripts where a case
// needs a shape no fixture has (many stops, noted-only).

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMAT_NAMES } from '../../src/model/transcript.js';
import type { LoopShape } from '../../src/ledger/types.js';
import { findAll, parseXml } from '../report/xml.js';
import { batch, canonical, ensureBuilt, parseLedger, repeat, runCli, scratch, type Call, type RunResult } from './helpers.js';

const LOOPING = 'fixtures/openai/looping-leap-day.jsonl';
const CALM = 'fixtures/openai/calm-weather.json';
/** A sub-agent lives here, so `parent` is exercised with a value. */
const WITH_SUBAGENT = 'fixtures/claude-code';
const J1 = ['--jobs', '1'];

const WRITE: Call[] = [['write_file', { path: 'a.txt', content: 'x' }]];

const tmp = scratch('loopledger-cli-formats-');
let notedOnly: string;
let manyStops: string;
let malformed: string;

beforeAll(() => {
  ensureBuilt();
  // Two identical batches: a strike that is noted, never a stop.
  notedOnly = tmp.write('noted-only.jsonl', canonical([{ id: 'noted-only', events: [...repeat(WRITE, 2, 'same'), batch([['ls']])] }]));
  // A good session, then a line that is no JSON and an unfinished last line (a run still being written).
  malformed = tmp.write(
    'malformed.jsonl',
    canonical([{ id: 'malformed', events: repeat(WRITE, 3, 'same') }]) + 'not json\n{"type":"assistant","text":"x"',
  );
  // Twelve sessions that each stop once (and note once before): more than GitHub shows per level.
  manyStops = tmp.write(
    'many-stops.jsonl',
    canonical(Array.from({ length: 12 }, (_, i) => ({ id: `run-${i + 1}`, events: repeat(WRITE, 3, 'same') }))),
  );
});

afterAll(() => tmp.cleanup());

function ok(r: RunResult, code = 0): RunResult {
  expect(r.code, `exit ${r.code}, stderr: ${r.stderr}`).toBe(code);
  return r;
}

describe.concurrent('formats through the CLI', () => {
  it("json: SPEC's shape, field for field, with a stop, a calm session and a sub-agent", async () => {
    const r = ok(await runCli([LOOPING, CALM, WITH_SUBAGENT, '--format', 'json', ...J1]));
    expect(r.stderr).toBe('');
    const j = parseLedger(r);
    expect(Object.keys(j).sort()).toEqual(['config', 'config_hash', 'inputs', 'not_transcripts', 'pricing', 'schema', 'sessions', 'summary', 'tool']);
    expect(j.config_hash).toMatch(/^[0-9a-f]{16}$/);
    expect((j as unknown as { not_transcripts: unknown[] }).not_transcripts).toEqual([]);
    expect(j.schema).toBe('loopledger/1');
    expect(j.tool).toEqual({ name: 'loopledger', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(j.config).toMatchObject({ 'tool_batch.max_strikes': 2, 'tool_batch.max_observation_steps': 15, scope: 'turn' });
    expect(j.inputs.map((i) => i.path)).toEqual(expect.arrayContaining([LOOPING, CALM]));
    for (const i of j.inputs) {
      expect(i).toMatchObject({ path: expect.any(String), format: expect.any(String), sessions: expect.any(Number), lines: expect.any(Number), skipped_lines: 0 });
      expect(Array.isArray(i.skipped)).toBe(true);
    }
    for (const s of j.sessions) {
      expect(Object.keys(s)).toEqual(
        expect.arrayContaining(['id', 'path', 'format', 'parent', 'project', 'model', 'turns', 'rounds', 'tool_calls', 'usage', 'cost', 'entries', 'outcome']),
      );
      expect(s.parent === null || typeof s.parent === 'string').toBe(true);
      expect(s.model === null || typeof s.model === 'string').toBe(true);
      expect(s.outcome.enforce).toMatchObject({ steers: expect.any(Number), stops: expect.any(Array) });
    }
    const sub = j.sessions.find((s) => s.parent !== null)!;
    expect(j.sessions.some((s) => s.id === sub.parent)).toBe(true);

    const loop = j.sessions.find((s) => s.path === LOOPING)!;
    expect(loop).toMatchObject({ id: 'looping-leap-day', format: 'openai', turns: 1, rounds: 7, tool_calls: 6 });
    expect(loop.outcome.enforce.stops).toEqual([{ turn: 1, round: 5 }]);
    for (const e of loop.entries) {
      expect(Object.keys(e)).toEqual(
        expect.arrayContaining(['turn', 'round', 'line', 'detector', 'kind', 'shape', 'confidence', 'strike', 'evidence', 'intervention', 'after_stop', 'round_usage']),
      );
      expect(Object.keys(e.intervention).sort()).toEqual(['enforce', 'off', 'telemetry']);
      expect(e.intervention.off).toBe('none');
      // SPEC: "never the looped text" unless --excerpts.
      expect(e).not.toHaveProperty('excerpts');
    }
    const stop = loop.entries.find((e) => e.intervention.enforce === 'stop')!;
    expect(stop).toMatchObject({ turn: 1, round: 5, line: 11, detector: 'tool_batch', kind: 'repeated_batch', confidence: null, after_stop: false });
    expect(stop.strike).toEqual({ count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false });
    expect(loop.entries.find((e) => e.round === 6)!.after_stop).toBe(true);

    const priced = j.sessions.filter((s) => s.cost!.usd !== null);
    const saving = j.sessions.filter((s) => s.outcome.enforce.saved!.rounds > 0);
    const cutting = j.sessions.filter((s) => s.outcome.enforce.cut!.rounds > 0);
    expect(j.summary).toEqual({
      sessions: j.sessions.length,
      rounds: j.sessions.reduce((a, s) => a + s.rounds, 0),
      entries: j.sessions.reduce((a, s) => a + s.entries.length, 0),
      skipped_lines: 0,
      enforce: {
        sessions_stopped: j.sessions.filter((s) => s.outcome.enforce.stops.length > 0).length,
        sessions_steered: j.sessions.filter((s) => s.outcome.enforce.steers > 0).length,
        saved: {
          rounds: saving.reduce((a, s) => a + s.outcome.enforce.saved!.rounds, 0),
          tokens: saving.reduce((a, s) => a + (s.outcome.enforce.saved!.tokens ?? 0), 0),
          usd: expect.closeTo(saving.reduce((a, s) => a + (s.outcome.enforce.saved!.usd ?? 0), 0), 9),
          unpriced_sessions: saving.filter((s) => s.outcome.enforce.saved!.usd === null).length,
          // docs/json.md: "`sessions` counts those with any such round"
          sessions: saving.length,
        },
        cut: {
          rounds: cutting.reduce((a, s) => a + s.outcome.enforce.cut!.rounds, 0),
          tokens: cutting.reduce((a, s) => a + (s.outcome.enforce.cut!.tokens ?? 0), 0),
          usd: expect.closeTo(cutting.reduce((a, s) => a + (s.outcome.enforce.cut!.usd ?? 0), 0), 9),
          unpriced_sessions: cutting.filter((s) => s.outcome.enforce.cut!.usd === null).length,
          sessions: cutting.length,
        },
      },
      cost: {
        usd: expect.closeTo(priced.reduce((a, s) => a + s.cost!.usd!, 0), 9),
        unpriced_sessions: j.sessions.length - priced.length,
      },
      // No judge configured: SPEC's summary.judge is there, at zero.
      judge: { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 },
      // SPEC 0.3: "summary.loop_shapes: [{shape, detector, kind, sessions, rounds, tokens, usd, example}]"
      // (test/cli/loop-shapes.test.ts pins the figures).
      loop_shapes: expect.any(Array),
    });
    const shapes = (j.summary as { loop_shapes?: LoopShape[] }).loop_shapes!;
    for (const l of shapes) expect(Object.keys(l)).toEqual(['shape', 'detector', 'kind', 'sessions', 'rounds', 'tokens', 'usd', 'example']);
    expect(shapes.map((l) => l.shape)).toContain('run_tests');
    expect(j.pricing).toEqual({ source: '@pydantic/genai-prices', version: expect.any(String), data_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), overrides: null });
    expect(j.summary.enforce.sessions_stopped).toBeGreaterThanOrEqual(1);
  });

  // The table is written in slices of 200 rows (so no session is ever one string); the seams must not show.
  it('table: a session with hundreds of entries is still one table with aligned rows', async () => {
    const long = tmp.write('long.jsonl', canonical([{ id: 'long', events: repeat(WRITE, 451, 'same') }]));
    const r = ok(await runCli([long, ...J1, '--all']));
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('┌'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('├'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('└'))).toHaveLength(1);
    const rows = lines.filter((l) => /^│\s+\d/.test(l));
    expect(rows).toHaveLength(450);
    expect(new Set(lines.filter((l) => /^[│┌├└]/.test(l)).map((l) => l.length)).size).toBe(1);
    expect(rows[0]).toMatch(/^│\s+1 │\s+2 │ tool_batch/);
    expect(rows.at(-1)).toMatch(/^│\s+1 │\s+451\* │ tool_batch/);
  });

  it('--json is --format json, byte for byte', async () => {
    const [a, b] = await Promise.all([runCli([LOOPING, CALM, '--json', ...J1]), runCli([LOOPING, CALM, '--format', 'json', ...J1])]);
    ok(a);
    ok(b);
    expect(a.stdout).toBe(b.stdout);
  });

  it('junit: well-formed XML, one testsuite per file, a failure for the looping session only', async () => {
    const r = ok(await runCli([LOOPING, CALM, '--format', 'junit', ...J1]));
    const root = parseXml(r.stdout);
    expect(root.name).toBe('testsuites');
    const suites = findAll(root, 'testsuite');
    expect(suites.map((s) => s.attrs['name']).sort()).toEqual([LOOPING, CALM].sort());
    const cases = findAll(root, 'testcase');
    expect(cases).toHaveLength(2);
    const failing = cases.filter((c) => findAll(c, 'failure').length > 0);
    expect(failing.map((c) => c.attrs['name'])).toEqual(['looping-leap-day']);
    expect(findAll(failing[0]!, 'failure')[0]!.attrs['type']).toBe('stop');
    expect(root.attrs['failures']).toBe('1');
  });

  it('sarif: version 2.1.0, rules, and results at the transcript file and line', async () => {
    const r = ok(await runCli([LOOPING, CALM, '--format', 'sarif', ...J1]));
    const s = JSON.parse(r.stdout);
    expect(s.version).toBe('2.1.0');
    expect(s.runs).toHaveLength(1);
    const run = s.runs[0];
    expect(run.tool.driver.name).toBe('loopledger');
    expect(run.results.length).toBeGreaterThan(0);
    const ruleIds = new Set(run.tool.driver.rules.map((x: { id: string }) => x.id));
    for (const res of run.results) expect(ruleIds.has(res.ruleId)).toBe(true);
    const err = run.results.find((x: { level: string }) => x.level === 'error');
    expect(err.ruleId).toBe('loopledger/tool_batch/repeated_batch');
    expect(err.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: LOOPING }, region: { startLine: 11 } });
  });

  it('ndjson: one object per line, each with its session id', async () => {
    const [nd, js] = await Promise.all([
      runCli([LOOPING, CALM, notedOnly, '--format', 'ndjson', ...J1]),
      runCli([LOOPING, CALM, notedOnly, '--json', ...J1]),
    ]);
    ok(nd);
    const lines = nd.stdout.split('\n');
    expect(lines.pop()).toBe('');
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const ledger = parseLedger(ok(js));
    expect(records).toHaveLength(ledger.summary.entries);
    for (const rec of records) {
      expect(typeof rec['session']).toBe('string');
      expect(rec).toHaveProperty('intervention');
    }
    expect(new Set(records.map((x) => x['session']))).toEqual(new Set(['looping-leap-day', 'noted-only']));
    // Each line is the JSON entry plus where it came from, and what a downstream SUM groups by
    // and must not mix (docs/scale.md): the schema and the configuration's hash.
    const loopSession = ledger.sessions.find((s) => s.id === 'looping-leap-day')!;
    const first = loopSession.entries[0]!;
    expect(records.find((x) => x['session'] === 'looping-leap-day')).toEqual({
      schema: 'loopledger/1',
      config_hash: ledger.config_hash,
      session: 'looping-leap-day',
      path: LOOPING,
      parent: null,
      project: loopSession.project,
      model: loopSession.model,
      started_at: loopSession.started_at,
      ended_at: loopSession.ended_at,
      ...first,
    });
  });

  it('markdown: the totals, the sessions and the ledger table', async () => {
    const r = ok(await runCli([LOOPING, CALM, '--format', 'markdown', ...J1]));
    const md = r.stdout;
    expect(md).toMatch(/^## loopledger\n/);
    // One vocabulary (issue 56 item 5): findings, as the table says; no Off column (always none).
    expect(md).toContain('| sessions | rounds | findings | enforce would stop | enforce would steer | skipped lines |');
    expect(md).toMatch(/^\| turn \| round \| line \| detector \| kind \| tools \| confidence \| repeats \| Telemetry.* \| Enforce.* \|$/m);
    expect(md).toMatch(/^\| ---: \| ---: \| ---: \| --- \|/m);
    // The tool that looped is named; "3× (max 2)" reads as it is meant (three in a row, two allowed).
    // The call that looped is named as the table names it (issue 56 item 2), its path cut short.
    expect(md).toContain('| 1 | 5 | 11 | tool\\_batch | repeated\\_batch | run\\_tests(…/test\\_dates.py) |  | 3× (max 2) | noted | **stop** |');
    expect(md).toContain('6 (after stop)');
    expect(md).toContain('| calm-weather |');
  });

  it('github: annotations capped at 10 per level, the rest summarized', async () => {
    const r = ok(await runCli([manyStops, '--format', 'github', ...J1]));
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(10);
    expect(lines.filter((l) => l.startsWith('::notice '))).toHaveLength(10);
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(0);
    expect(r.stdout).toMatch(/2 errors, 2 notices more not annotated/);
    expect(lines.at(-1)).toMatch(/^loopledger: 12 sessions, 24 findings; enforce would stop 12 and steer 0/);
    expect(lines.find((l) => l.startsWith('::error '))).toMatch(/^::error file=[^,]*many-stops\.jsonl,line=\d+,title=loopledger tool_batch\/repeated_batch::session run-1, turn 1 round 3/);
  });

  it('--output-file writes the payload there and leaves stdout empty', async () => {
    const out = `${tmp.dir}/ledger.json`;
    const [file, direct] = await Promise.all([
      runCli([LOOPING, '--json', '--output-file', out, ...J1]),
      runCli([LOOPING, '--json', ...J1]),
    ]);
    ok(file);
    expect(file.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(ok(direct).stdout);
  });

  it('--output-file into a folder that does not exist creates it; one that cannot be made is exit 2 with a message', async () => {
    const made = await runCli([LOOPING, '--output-file', `${tmp.dir}/no/such/dir/x.json`, ...J1]);
    expect(made.code).toBe(0);
    expect(readFileSync(`${tmp.dir}/no/such/dir/x.json`, 'utf8')).toContain('looping-leap-day');
    const blocker = tmp.write('a-file', 'not a folder');
    const r = await runCli([LOOPING, '--output-file', `${blocker}/x.json`, ...J1]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.concurrent('options that shape the ledger', () => {
  it('junit: with --fail-on noted a noted-only session is a failure too', async () => {
    const r = await runCli([notedOnly, CALM, '--format', 'junit', '--fail-on', 'noted', ...J1]);
    expect(r.code).toBe(1);
    const failures = findAll(parseXml(r.stdout), 'failure');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.attrs['type']).toBe('noted');
  });

  it('--quiet keeps only sessions with entries; --verbose adds every round\'s verdict', async () => {
    const [quiet, verbose] = await Promise.all([
      runCli([LOOPING, CALM, '--quiet', ...J1]),
      runCli([LOOPING, CALM, '--verbose', ...J1]),
    ]);
    expect(ok(quiet).stdout).toContain('looping-leap-day');
    expect(quiet.stdout).not.toContain('calm-weather');
    expect(ok(verbose).stdout).toContain('calm-weather');
    expect(verbose.stdout).toMatch(/^\s+t1 r5 \(line 11\): enforce stop$/m);
    expect(verbose.stdout).toMatch(/^\s+t1 r6 \(line 13\): enforce none \(after stop\)$/m);
  });

  it('malformed and unfinished lines: skipped, reported as path:line on stderr and in inputs[].skipped, exit 0; the session is still analyzed', async () => {
    const r = ok(await runCli([malformed, '--json', ...J1]));
    expect(r.stderr).toMatch(/malformed\.jsonl:\d+: malformed JSON/);
    expect(r.stderr).toMatch(/malformed\.jsonl:\d+: truncated/);
    const j = parseLedger(r);
    expect(j.inputs[0]!.skipped.map((k) => k.line)).toEqual([9, 10]);
    expect(j.summary.skipped_lines).toBe(2);
    expect(j.sessions[0]!.outcome.enforce.stops).toEqual([{ turn: 1, round: 3 }]);
  });

  it('--strict makes malformed input exit 2, still after printing the ledger', async () => {
    const r = await runCli([malformed, '--strict', ...J1]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--strict: 2 malformed line/);
    expect(r.stdout).toContain('session malformed');
  });

  it('SPEC: "Inputs are processed in sorted order, so output is deterministic": --jobs 2 prints what --jobs 1 prints', async () => {
    const [one, two] = await Promise.all([
      runCli(['fixtures', '--json', '--jobs', '1']),
      runCli(['fixtures', '--json', '--jobs', '2']),
    ]);
    expect(ok(two).stdout).toBe(ok(one).stdout);
    const paths = parseLedger(one).inputs.map((i) => i.path);
    expect(paths).toEqual([...paths].sort());
  });

  it('config and formats subcommands exit 0 with their payload on stdout', async () => {
    const [config, formats] = await Promise.all([
      runCli(['config', '--json', '--set', 'tool_batch.max_strikes=3']),
      runCli(['formats']),
    ]);
    expect(JSON.parse(ok(config).stdout).config['tool_batch.max_strikes']).toBe(3);
    for (const name of FORMAT_NAMES) {
      expect(ok(formats).stdout).toContain(name);
    }
  });
});

describe.concurrent('exit codes', () => {
  it('--fail-on stop: 1 on a looping transcript, 0 on a calm one', async () => {
    const [loop, calm] = await Promise.all([
      runCli([LOOPING, '--fail-on', 'stop', ...J1]),
      runCli([CALM, '--fail-on', 'stop', ...J1]),
    ]);
    expect(loop.code).toBe(1);
    expect(loop.stderr).toMatch(/1 session reached --fail-on stop/);
    expect(loop.stdout).toContain('looping-leap-day');
    expect(calm.code).toBe(0);
  });

  it('without --fail-on a looping transcript is still exit 0', async () => {
    ok(await runCli([LOOPING, ...J1]));
  });

  it('--fail-on steer: a stop is past steer (1); a noted-only session is not (0)', async () => {
    const [loop, noted] = await Promise.all([
      runCli([LOOPING, '--fail-on', 'steer', ...J1]),
      runCli([notedOnly, '--fail-on', 'steer', ...J1]),
    ]);
    expect(loop.code).toBe(1);
    expect(noted.code).toBe(0);
  });

  it('--fail-on noted: a noted strike is enough (1); a calm session is not (0)', async () => {
    const [noted, calm] = await Promise.all([
      runCli([notedOnly, '--fail-on', 'noted', ...J1]),
      runCli([CALM, '--fail-on', 'noted', ...J1]),
    ]);
    expect(noted.code).toBe(1);
    expect(calm.code).toBe(0);
  });

  it('--fail-on none never fails', async () => {
    ok(await runCli([LOOPING, '--fail-on', 'none', ...J1]));
  });

  it.each([
    ['an unknown flag', ['--no-such-flag', LOOPING], /unknown option '--no-such-flag'/],
    ['a bad --fail-on value', ['--fail-on', 'sometimes', LOOPING], /'sometimes' is invalid/],
    ['a bad --format value', ['--format', 'yaml', LOOPING], /'yaml' is invalid/],
    ['a bad --scope value', ['--scope', 'session', LOOPING], /'session' is invalid/],
    ['a bad --jobs value', ['--jobs', '0', LOOPING], /--jobs takes a whole number/],
    ['an unknown --set key', ['--set', 'tool_batch.no_such_key=1', LOOPING], /no_such_key/],
  ])('%s is a usage error: exit 2, a message on stderr, nothing on stdout', async (_what, args, message) => {
    const r = await runCli(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a missing path is exit 2', async () => {
    const r = await runCli(['fixtures/no-such-file.jsonl', ...J1]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-file\.jsonl: no such file/);
  });

  it('a missing path beside a good file: exit 2, and the good file is still in the ledger', async () => {
    const r = await runCli(['fixtures/no-such-file.jsonl', CALM, '--json', ...J1]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-file\.jsonl: no such file/);
    const j = parseLedger(r);
    expect(j.sessions.map((s) => s.id)).toEqual(['calm-weather']);
    expect(j.inputs.find((i) => i.path === 'fixtures/no-such-file.jsonl')).toMatchObject({ error: expect.any(String) });
  });

  it('a missing path beats --fail-on: exit 2 even when another file would exit 1', async () => {
    const r = await runCli(['fixtures/no-such-file.jsonl', LOOPING, '--fail-on', 'stop', ...J1]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('looping-leap-day');
  });

  it('no path and no agent session store is exit 2, naming where it looked (stdin is read only for -)', async () => {
    // SPEC: with no path at all the agents' stores are read; "none found is exit 2, naming where it looked".
    const home = join(tmp.dir, 'empty-home');
    mkdirSync(home, { recursive: true });
    const none = await runCli([], { stdin: '{"type":"user","text":"hi"}\n', env: { HOME: home, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no agent session store found/);
    expect(none.stderr).toContain('~/.claude/projects');
    expect(none.stderr).toContain('~/.codex/sessions');
    expect(none.stderr).toContain('~/.gemini/tmp/*/chats');
    const empty = await runCli([tmp.dir + '/nothing-here-dir-that-is-missing']);
    expect(empty.code).toBe(2);
  });

  it('- reads stdin', async () => {
    const r = ok(await runCli(['-', '--json'], { stdin: canonical([{ id: 'piped', events: repeat(WRITE, 3, 'same') }]) }));
    expect(parseLedger(r).sessions[0]).toMatchObject({ id: 'piped', format: 'canonical', outcome: { enforce: { stops: [{ turn: 1, round: 3 }] } } });
  });

  it('--help and --version are exit 0 on stdout', async () => {
    const [help, version, short] = await Promise.all([runCli(['--help']), runCli(['--version']), runCli(['-V'])]);
    expect(ok(help).stdout).toMatch(/^Usage: loopledger/);
    expect(help.stdout).toContain('analyze');
    expect(ok(version).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(ok(short).stdout).toBe(version.stdout);
    expect(help.stderr + version.stderr).toBe('');
  });

  it('analyze --help lists the ledger options', async () => {
    const r = ok(await runCli(['analyze', '--help']));
    for (const flag of ['--format', '--fail-on', '--output-file', '--excerpts', '--set', '--scope']) expect(r.stdout).toContain(flag);
  });
});
