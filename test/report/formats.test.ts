import { describe, expect, it } from 'vitest';
import { MACHINE_FORMATS, REPORT_FORMATS } from '../../src/vocabulary.js';
import { reachedFailOn, renderReport } from '../../src/report/index.js';
import { ANNOTATIONS_PER_LEVEL, escapeData, escapeProperty } from '../../src/report/github.js';
import { artifactUri, ruleId } from '../../src/report/sarif.js';
import { calm, entry, looping, mixedReport, report, session, steering, subAgent } from './fixtures.js';
import { opts } from './helpers.js';
import { findAll, parseXml } from './xml.js';

describe('reachedFailOn', () => {
  it('orders none < noted < steer < stop and never fails on none', () => {
    expect(reachedFailOn(looping, 'stop')).toBe(true);
    expect(reachedFailOn(steering, 'stop')).toBe(false);
    expect(reachedFailOn(steering, 'steer')).toBe(true);
    expect(reachedFailOn(steering, 'noted')).toBe(true);
    expect(reachedFailOn(subAgent, 'noted')).toBe(true);
    expect(reachedFailOn(subAgent, 'steer')).toBe(false);
    expect(reachedFailOn(calm, 'noted')).toBe(false);
    expect(reachedFailOn(looping, 'none')).toBe(false);
  });
});

describe('json', () => {
  it("is SPEC's shape, field for field", async () => {
    const out = await renderReport(mixedReport(), 'json', opts());
    expect(out.endsWith('\n')).toBe(true);
    const j = JSON.parse(out);
    expect(Object.keys(j).sort()).toEqual(['config', 'inputs', 'schema', 'sessions', 'summary', 'tool']);
    expect(j.schema).toBe('loopledger/1');
    expect(j.tool).toEqual({ name: 'loopledger', version: '0.1.0' });
    for (const i of j.inputs) {
      expect(i).toEqual(expect.objectContaining({ path: expect.any(String), sessions: expect.any(Number), lines: expect.any(Number), skipped: expect.any(Array) }));
      expect(i).toHaveProperty('format');
    }
    const s = j.sessions.find((x: { id: string }) => x.id === 'loop-1');
    for (const k of ['id', 'path', 'format', 'parent', 'model', 'turns', 'rounds', 'tool_calls', 'entries', 'outcome']) {
      expect(s).toHaveProperty(k);
    }
    expect(s.outcome.enforce).toEqual({ steers: 0, stops: [{ turn: 2, round: 7 }] });
    const e = s.entries[1];
    for (const k of ['turn', 'round', 'line', 'detector', 'kind', 'confidence', 'strike', 'evidence', 'intervention', 'after_stop']) {
      expect(e).toHaveProperty(k);
    }
    expect(Object.keys(e.strike).sort()).toEqual(['ceiling', 'count', 'read_only', 'threshold', 'total']);
    expect(e.intervention).toEqual({ off: 'none', telemetry: 'noted', enforce: 'stop' });
    expect(j.sessions.find((x: { id: string }) => x.id === 'loop-1/agent-a').parent).toBe('loop-1');
    expect(Object.keys(j.summary).sort()).toEqual(['enforce', 'entries', 'rounds', 'sessions', 'skipped_lines']);
    expect(Object.keys(j.summary.enforce).sort()).toEqual(['sessions_steered', 'sessions_stopped']);
  });

  it('round-trips the report exactly, even with C1 and bidi characters escaped', async () => {
    const r = report([session({ id: 'a\u009b2J\u202eb\u007f' })]);
    const out = await renderReport(r, 'json', opts());
    expect(out).not.toMatch(/[\u007f-\u009f\u202e]/);
    expect(JSON.parse(out)).toEqual(r);
  });
});

describe('excerpts', () => {
  it('json and ndjson echo looped text only with --excerpts', async () => {
    for (const f of ['json', 'ndjson'] as const) {
      const without = await renderReport(mixedReport(), f, opts());
      expect(without, f).not.toContain('read_file');
      expect(without, f).not.toContain('"excerpts"');
      const withEx = await renderReport(mixedReport(), f, opts({ excerpts: true }));
      expect(withEx, f).toContain('read_file');
    }
  });

  it('no other format echoes them without the option', async () => {
    for (const f of ['table', 'markdown', 'junit', 'sarif', 'github'] as const) {
      const out = await renderReport(mixedReport(), f, opts({ explain: true, verbose: true }));
      expect(out, f).not.toContain('read_file');
    }
  });
});

describe('ndjson', () => {
  it('writes one entry per line with its session id and path', async () => {
    const out = await renderReport(mixedReport(), 'ndjson', opts());
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    const objs = lines.map((l) => JSON.parse(l));
    expect(objs.map((o) => o.session)).toEqual(['chat-7', 'loop-1', 'loop-1', 'loop-1', 'loop-1/agent-a']);
    expect(objs[1]).toMatchObject({ path: 'runs/loop.jsonl', parent: null, turn: 2, round: 6, detector: 'tool_batch' });
    expect(objs[4].parent).toBe('loop-1');
  });

  it('writes nothing for a report without entries', async () => {
    expect(await renderReport(report([calm]), 'ndjson', opts())).toBe('');
  });
});

describe('markdown', () => {
  it('has a summary table and a ledger table per session with entries', async () => {
    const out = await renderReport(mixedReport(), 'markdown', opts({ mode: 'enforce' }));
    expect(out).toContain('| sessions | rounds | findings | enforce would stop | enforce would steer | skipped lines |');
    expect(out).toContain('| 4 | 33 | 5 | 1 | 1 | 1 |');
    expect(out).toMatch(/\| turn \| round \| line \| detector \| kind \| confidence \| repeats \| Telemetry \| Enforce \(configured\) \|/);
    expect(out).toContain('| 2 | 7 | 47 | tool\\_batch | repeated\\_batch | 1.00 | 2× (max 2) | noted | **stop** |');
    expect(out).toContain('(after stop)');
    // One ledger section per session with entries; the calm session only in the summary.
    expect(out.match(/^### /gm)).toHaveLength(4);
    expect(out).toContain('| calm-3 |');
    expect(out).toContain('runs/zz-broken.bin: binary file');
  });

  it('escapes pipes, backticks and angle brackets from transcript text', async () => {
    const out = await renderReport(
      report([session({ id: 'a|b`c<script>', entries: [entry({ kind: 'k|x' })] })]),
      'markdown',
      opts(),
    );
    expect(out).toContain('a\\|b\\`c\\<script\\>');
    expect(out).toContain('k\\|x');
    expect(out).not.toMatch(/[^\\][|`<](?=b|c|script|x)/);
  });
});

describe('junit', () => {
  it('parses as XML: a suite per input, a case per session, a failure for the loop', async () => {
    const out = await renderReport(mixedReport(), 'junit', opts());
    const root = parseXml(out);
    expect(root.name).toBe('testsuites');
    const suites = findAll(root, 'testsuite');
    expect(suites.map((s) => s.attrs['name'])).toEqual(['runs/calm.jsonl', 'runs/chat.json', 'runs/loop.jsonl', 'runs/zz-broken.bin']);
    const cases = findAll(root, 'testcase');
    expect(cases.map((c) => c.attrs['name'])).toEqual(['calm-3', 'chat-7', 'loop-1', 'loop-1/agent-a (sub-agent of loop-1)', '(input)']);
    const failures = findAll(root, 'failure');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.attrs['type']).toBe('stop');
    expect(failures[0]!.text).toContain('turn 2 round 7 line 47: tool_batch/repeated_batch');
    expect(root.attrs).toMatchObject({ tests: '5', failures: '1', errors: '1' });
    expect(findAll(root, 'error')[0]!.attrs['message']).toBe('binary file');
    expect(findAll(root, 'system-err')[0]!.text).toBe('runs/loop.jsonl:12: invalid JSON');
  });

  it('fails every session that reaches --fail-on', async () => {
    const root = parseXml(await renderReport(mixedReport(), 'junit', opts({ failOn: 'noted' })));
    const failed = findAll(root, 'testcase').filter((c) => c.children.some((x) => x.name === 'failure'));
    expect(failed.map((c) => c.attrs['name'])).toEqual(['chat-7', 'loop-1', 'loop-1/agent-a (sub-agent of loop-1)']);
  });

  it('escapes markup and strips characters XML 1.0 forbids', async () => {
    const out = await renderReport(
      report([session({ id: 'a<b>&"c\'\u0000\u0001\ufffe\ud800', entries: [entry({ intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' } })] })]),
      'junit',
      opts(),
    );
    const root = parseXml(out);
    // U+FFFE, which XML forbids, is stripped; a lone surrogate is shown by its number (sanitize, issue 53).
    expect(findAll(root, 'testcase')[0]!.attrs['name']).toBe('a<b>&"c\'\\x00\\x01\\ud800');
  });
});

describe('sarif', () => {
  it('is 2.1.0 with one run, stable rule ids and results at file and line', async () => {
    const j = JSON.parse(await renderReport(mixedReport(), 'sarif', opts()));
    expect(j.version).toBe('2.1.0');
    expect(j.$schema).toMatch(/sarif-schema-2\.1\.0\.json$/);
    expect(j.runs).toHaveLength(1);
    const driver = j.runs[0].tool.driver;
    expect(driver.name).toBe('loopledger');
    expect(driver.version).toBe('0.1.0');
    const ids: string[] = driver.rules.map((r: { id: string }) => r.id);
    expect(ids).toContain('loopledger/tool_batch/repeated_batch');
    expect(ids).toContain('loopledger/output/near_repetition');
    expect(new Set(ids).size).toBe(ids.length);
    const results = j.runs[0].results;
    expect(results).toHaveLength(5);
    const stop = results.find((r: { level: string }) => r.level === 'error');
    expect(stop.ruleId).toBe('loopledger/tool_batch/repeated_batch');
    expect(driver.rules[stop.ruleIndex].id).toBe(stop.ruleId);
    expect(stop.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: 'runs/loop.jsonl' }, region: { startLine: 47 } });
    const steer = results.find((r: { level: string }) => r.level === 'warning');
    expect(steer.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: 'runs/chat.json' } });
    expect(results.filter((r: { level: string }) => r.level === 'note')).toHaveLength(2);
    expect(results.filter((r: { level: string }) => r.level === 'none')).toHaveLength(1);
    expect(j.runs[0].invocations[0].toolExecutionNotifications).toHaveLength(2);
  });

  it('makes rule ids and uris safe', () => {
    expect(ruleId('tool_batch', 'a b/c')).toBe('loopledger/tool_batch/a_b_c');
    expect(artifactUri('/work/repo/runs/a b#1.jsonl', '/work/repo')).toBe('runs/a%20b%231.jsonl');
    expect(artifactUri('/elsewhere/x.jsonl', '/work/repo')).toBe('/elsewhere/x.jsonl');
    expect(artifactUri('-', '/work/repo')).toBe('stdin');
  });
});

describe('github', () => {
  it('escapes data and properties the way the runner requires', () => {
    expect(escapeData('100%\r\nx')).toBe('100%25%0D%0Ax');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
  });

  it('annotates stop as error, steer as warning, noted as notice, at file and line', async () => {
    const out = await renderReport(mixedReport(), 'github', opts());
    const lines = out.trimEnd().split('\n');
    expect(lines).toContain('::error file=runs/zz-broken.bin,title=loopledger%3A input not analyzed::binary file');
    expect(lines).toContain(
      '::error file=runs/loop.jsonl,line=47,title=loopledger tool_batch/repeated_batch::session loop-1, turn 2 round 7, enforce would stop the turn, confidence 1.00, same batch and answers 2 in a row (max 2)',
    );
    expect(lines.filter((l) => l.startsWith('::warning file=runs/chat.json,title='))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('::notice '))).toHaveLength(2);
    expect(lines.at(-1)).toBe('loopledger: 4 sessions, 5 findings; enforce would stop 1 and steer 1; 1 skipped line');
  });

  it('caps annotations at 10 per level and summarizes the rest in one line', async () => {
    const level = (enforce: 'stop' | 'steer' | 'noted') => ({ off: 'none' as const, telemetry: 'noted' as const, enforce });
    const entries = [
      ...Array.from({ length: 15 }, (_, i) => entry({ round: i + 1, line: i + 1, intervention: level('stop') })),
      ...Array.from({ length: 12 }, (_, i) => entry({ round: 20 + i, intervention: level('steer') })),
      ...Array.from({ length: 3 }, (_, i) => entry({ round: 40 + i, intervention: level('noted') })),
    ];
    const out = await renderReport(report([session({ entries })]), 'github', opts());
    const lines = out.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(ANNOTATIONS_PER_LEVEL);
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(ANNOTATIONS_PER_LEVEL);
    expect(lines.filter((l) => l.startsWith('::notice '))).toHaveLength(3);
    const summary = lines.filter((l) => l.includes('more not annotated'));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain('5 errors, 2 warnings more');
  });
});

describe('paths in CI formats', () => {
  it('are relative to the working directory when the input was given absolute', async () => {
    const r = report([session({ path: '/work/repo/runs/a.jsonl', entries: [entry({ line: 3, intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' } })] })]);
    const o = opts({ cwd: '/work/repo' });
    const sarif = JSON.parse(await renderReport(r, 'sarif', o));
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe('runs/a.jsonl');
    expect(await renderReport(r, 'github', o)).toContain('::error file=runs/a.jsonl,line=3,');
    expect(await renderReport(r, 'junit', o)).toContain('<testsuite name="runs/a.jsonl"');
  });
});

describe('machine formats', () => {
  it('never carry colour, whatever the option says', async () => {
    for (const f of MACHINE_FORMATS) {
      const out = await renderReport(mixedReport(), f, opts({ color: true }));
      expect(out, f).not.toContain('\x1b');
    }
  });

  it('are deterministic: the same report renders to the same bytes', async () => {
    // otlp stamps its records with the evaluation time, an input like the report (the CLI takes it
    // from SOURCE_DATE_EPOCH): left to the clock, two renders a millisecond apart differed.
    const evaluatedAt = 1_700_000_000_000;
    for (const f of REPORT_FORMATS) {
      const a = await renderReport(mixedReport(), f, opts({ evaluatedAt }));
      const b = await renderReport(mixedReport(), f, opts({ evaluatedAt }));
      expect(a, f).toBe(b);
    }
  });
});
