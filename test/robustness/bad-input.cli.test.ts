// SPEC "Bad input", case by case, against the built binary (real streams, real exit codes):
// "Never crash, never hang, never modify an input. A malformed line is skipped and reported
// (`path:line: reason` on stderr, and in `inputs[].skipped`); `--strict` makes that exit 2. An
// unfinished last line (a session still being written) is reported as truncated. Blank lines, a
// BOM, CRLF, a line holding `null`, unknown record types, binary or non-UTF-8 files,
// megabyte-long lines, arguments nested thousands deep: each gets a clear message or a correct
// result, and the other inputs are still analyzed. Text from a transcript never reaches the
// terminal raw: control characters and escape sequences are neutralized."

import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_FORMATS } from '../../src/vocabulary.js';
import { TRUNCATED_REASON } from '../../src/formats/ingest.js';
import { ESC, FIXTURES, ROOT, type SpawnResult, TERMINAL_CONTROL, ensureBuilt, runLoopledger, scratch } from './helpers.js';

const tmp = scratch('loopledger-badinput-');
const LOOPING = readFileSync(join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl'));
const LOOPING_LINES = LOOPING.toString('utf8').split('\n').filter((l) => l !== '');

beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

interface Report {
  inputs: { path: string; format: string | null; sessions: number; lines: number; error?: string; skipped: { line: number | null; reason: string }[] }[];
  sessions: { id: string; path: string; turns: number; rounds: number; tool_calls: number; entries: { kind: string; detector: string; round: number; line: number | null; intervention: { enforce: string } }[]; outcome: { enforce: { stops: unknown[] } } }[];
  summary: { sessions: number; skipped_lines: number };
}

function report(r: SpawnResult): Report {
  return JSON.parse(r.stdout.toString('utf8')) as Report;
}

/** Sessions without source line numbers: what must survive a line inserted above them. */
function shape(rep: Report) {
  return rep.sessions.map((s) => ({ ...s, path: undefined, entries: s.entries.map((e) => ({ ...e, line: undefined })) }));
}

/** The looping fixture with a malformed line 5 inserted. */
function withBadMiddle(): string {
  const lines = [...LOOPING_LINES];
  lines.splice(4, 0, '{"type":"assistant","message":{bad json');
  return tmp.file('bad-middle.jsonl', lines.join('\n') + '\n');
}

let cleanReport: Report;
beforeAll(async () => {
  const r = await runLoopledger([tmp.file('clean.jsonl', LOOPING), '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  cleanReport = report(r);
  expect(cleanReport.sessions[0]!.entries.length).toBeGreaterThan(0);
});

describe('bad input, one case at a time (the built CLI)', () => {
  it('"An unfinished last line … is reported as truncated": named on stderr, in inputs[].skipped, the rest analyzed', async () => {
    const path = tmp.file('truncated.jsonl', LOOPING.subarray(0, LOOPING.length - 40));
    const r = await runLoopledger([path, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    const last = LOOPING_LINES.length;
    expect(r.stderr).toContain(`${path}:${last}: truncated`);
    expect(rep.inputs[0]!.skipped).toEqual([{ line: last, reason: TRUNCATED_REASON }]);
    expect(rep.sessions[0]!.rounds).toBeGreaterThan(0);
    expect(rep.sessions[0]!.entries.map((e) => e.kind)).toEqual(cleanReport.sessions[0]!.entries.map((e) => e.kind));
  });

  it('a small file cut inside a multi-byte character is truncated, not refused as non-UTF-8', async () => {
    // SPEC: "An unfinished last line (a session still being written) is reported as truncated."
    const text = `${LOOPING_LINES.slice(0, 10).join('\n')}\n{"type":"assistant","message":{"content":"héllo 🦀`;
    const bytes = Buffer.from(text);
    const path = tmp.file('cut-char.jsonl', bytes.subarray(0, bytes.length - 2));
    const r = await runLoopledger([path, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep.inputs[0]!.format).toBe('claude-code');
    expect(rep.inputs[0]!.skipped).toEqual([{ line: 11, reason: TRUNCATED_REASON }]);
  });

  it('a pretty-printed JSON document cut short is named as truncated; the good file beside it is analyzed', async () => {
    // SPEC: "An unfinished last line (a session still being written) is reported as truncated."
    const doc = readFileSync(join(FIXTURES, 'anthropic', 'looping-deploy.json'));
    const cut = tmp.file('cut-export.json', doc.subarray(0, Math.floor(doc.length / 2)));
    const good = tmp.file('good-beside-cut.jsonl', LOOPING);
    const r = await runLoopledger([cut, good, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`cut-export\\.json: not JSON: truncated`));
    expect(report(r).sessions.map((s) => s.path)).toEqual([good]);
  });

  it('"A malformed line is skipped and reported (`path:line: reason` on stderr, and in `inputs[].skipped`)": the rest is analyzed', async () => {
    const path = withBadMiddle();
    const r = await runLoopledger([path, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5: malformed JSON`, 'm'));
    const rep = report(r);
    expect(rep.inputs[0]!.skipped).toHaveLength(1);
    expect(rep.inputs[0]!.skipped[0]!.line).toBe(5);
    expect(rep.inputs[0]!.skipped[0]!.reason).toMatch(/^malformed JSON/);
    expect(shape(rep)).toEqual(shape(cleanReport));
  });

  it('"`--strict` makes that exit 2"; a clean file under --strict still exits 0', async () => {
    const bad = await runLoopledger([withBadMiddle(), '--strict']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--strict');
    expect(bad.stdout.length).toBeGreaterThan(0);
    const clean = await runLoopledger([tmp.file('strict-clean.jsonl', LOOPING), '--strict']);
    expect(clean.code, clean.stderr).toBe(0);
  });

  it('"a BOM, CRLF": a file with both gives the same ledger, byte for byte, as the clean file', async () => {
    mkdirSync(join(tmp.dir, 'clean'), { recursive: true });
    mkdirSync(join(tmp.dir, 'dirty'), { recursive: true });
    writeFileSync(join(tmp.dir, 'clean', 'x.jsonl'), LOOPING);
    const dirty = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LOOPING.toString('utf8').replace(/\n/g, '\r\n'))]);
    writeFileSync(join(tmp.dir, 'dirty', 'x.jsonl'), dirty);
    for (const format of ['json', 'table']) {
      const a = await runLoopledger(['x.jsonl', '--format', format], { cwd: join(tmp.dir, 'clean') });
      const b = await runLoopledger(['x.jsonl', '--format', format], { cwd: join(tmp.dir, 'dirty') });
      expect(b.code, b.stderr).toBe(0);
      expect(b.stderr).toBe(a.stderr);
      expect(b.stdout.equals(a.stdout)).toBe(true);
    }
  });

  it('"a line holding `null`": skipped and named, the rest analyzed; a file of only null is named', async () => {
    const lines = [...LOOPING_LINES];
    lines.splice(2, 0, 'null');
    const path = tmp.file('null-line.jsonl', lines.join('\n') + '\n');
    const only = tmp.file('only-null.jsonl', 'null\n');
    const r = await runLoopledger([path, only, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${path}:3: not a record`);
    expect(r.stderr).toContain(only);
    const rep = report(r);
    const input = rep.inputs.find((i) => i.path === path)!;
    expect(input.skipped).toEqual([{ line: 3, reason: expect.stringContaining('null') }]);
    expect(shape({ ...rep, sessions: rep.sessions.filter((s) => s.path === path) })).toEqual(shape(cleanReport));
    expect(rep.inputs.find((i) => i.path === only)!.error).toBeTruthy();
  });

  it('an empty file, and one of blank lines, get a clear message; the good file beside them is analyzed', async () => {
    // SPEC: "Blank lines, … : each gets a clear message or a correct result, and the other inputs are still analyzed."
    const empty = tmp.file('empty.jsonl', '');
    const blank = tmp.file('blank.jsonl', '\n  \r\n\t\n');
    const good = tmp.file('good-beside-empty.jsonl', LOOPING);
    const r = await runLoopledger([empty, blank, good, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${empty}: empty file`);
    expect(r.stderr).toContain(`${blank}: empty file`);
    const rep = report(r);
    expect(rep.sessions.map((s) => s.path)).toEqual([good]);
    expect(rep.inputs.find((i) => i.path === empty)!.error).toMatch(/empty/);
  });

  it('a missing path: exit 2, named on stderr, and the other inputs are still analyzed', async () => {
    // SPEC exit codes: "**2** usage error, a path that cannot be read, no input found".
    const missing = join(tmp.dir, 'no-such-file.jsonl');
    const good = tmp.file('good-beside-missing.jsonl', LOOPING);
    const r = await runLoopledger([missing, good, '--format', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${missing}: no such file`);
    expect(report(r).sessions.map((s) => s.path)).toEqual([good]);
    const alone = await runLoopledger([missing]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(missing);
  });

  it('"binary or non-UTF-8 files" beside a good file: the good one analyzed, each bad one named, exit 0', async () => {
    let seed = 7;
    const noise = Buffer.alloc(4096, 0).map(() => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16) & 0xff);
    const bad = {
      garbage: tmp.file('garbage.jsonl', noise),
      latin1: tmp.file('latin1.jsonl', Buffer.from('{"type":"user","message":{"content":"caf\xe9"}}\n', 'latin1')),
      utf16: tmp.file('utf16.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}\n', 'utf16le')])),
      gzip: tmp.file('gzipped.jsonl', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4])),
    };
    const good = tmp.file('good-beside-garbage.jsonl', LOOPING);
    const r = await runLoopledger([...Object.values(bad), good, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const rep = report(r);
    expect(rep.sessions.map((s) => s.path)).toEqual([good]);
    expect(shape(rep)).toEqual(shape(cleanReport));
    expect(r.stderr).toContain(`${bad.garbage}: binary file`);
    expect(r.stderr).toContain(`${bad.latin1}: not UTF-8`);
    expect(r.stderr).toContain(`${bad.utf16}: UTF-16`);
    expect(r.stderr).toContain(`${bad.gzip}: gzip`);
    expect(r.stderr).not.toMatch(TERMINAL_CONTROL);
  });

  it('"arguments nested thousands deep" (100,000): no crash, and the repeated deep batch is caught like any other', async () => {
    const depth = 100_000;
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    const s = JSON.stringify;
    // The same call four times: a tool-batch loop. Depth does not make calls equal or unequal
    // beyond the documented cap; a different call between them breaks the run.
    let canonical = `${s({ type: 'session', schema: 'loopledger-canonical/1', id: 'deep', parent: null, model: 'm' })}\n${s({ type: 'user', text: 'go' })}\n`;
    let openai = `${s({ role: 'user', content: 'go' })}\n`;
    const base = { sessionId: 'deep-cc', isSidechain: false, userType: 'external', cwd: '/w', version: '2.1.34' };
    let claude = `${s({ ...base, type: 'user', uuid: 'u0', message: { role: 'user', content: 'go' } })}\n`;
    for (let i = 0; i < 4; i++) {
      canonical += `{"type":"assistant","text":"","tool_calls":[{"id":"c${i}","name":"build","arguments":{"x":${deep}}}]}\n`;
      canonical += `{"type":"tool_result","id":"c${i}","content":${deep}}\n`;
      openai += `${s({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'build', arguments: `{"x":${deep}}` } }] })}\n`;
      openai += `${s({ role: 'tool', tool_call_id: `c${i}`, content: 'failed' })}\n`;
      claude += `{"sessionId":"deep-cc","type":"assistant","uuid":"a${i}","isSidechain":false,"message":{"id":"m${i}","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"t${i}","name":"Bash","input":{"x":${deep}}}]}}\n`;
      claude += `${s({ ...base, type: 'user', uuid: `r${i}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'failed' }] } })}\n`;
    }
    const files = [tmp.file('deep-canonical.jsonl', canonical), tmp.file('deep-openai.jsonl', openai), tmp.file('deep-claude.jsonl', claude)];
    // json through worker threads (the default for several files), table in this thread.
    for (const [format, jobs] of [['json', '2'], ['table', '1']] as const) {
      const r = await runLoopledger([...files, '--format', format, '--jobs', jobs, '--excerpts', '--verbose', '--explain']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      if (format !== 'json') continue;
      const rep = report(r);
      expect(rep.sessions).toHaveLength(3);
      for (const session of rep.sessions) {
        expect(session.rounds).toBe(4);
        expect(session.tool_calls).toBe(4);
        const repeated = session.entries.filter((e) => e.detector === 'tool_batch');
        expect(repeated.length, session.path).toBeGreaterThan(0);
        expect(session.outcome.enforce.stops).toHaveLength(1);
      }
    }
  });

  it('"escape sequences are neutralized": no ESC byte (nor any other control) in table, markdown, github or stderr', async () => {
    const evil = `${ESC}[31mRED${ESC}]0;pwned\u0007${ESC}[2J\u009b31m\r\b${ESC}P+q${ESC}\\`;
    const s = JSON.stringify;
    let text = `${s({ type: 'session', schema: 'loopledger-canonical/1', id: `sess${evil}`, parent: null, model: `model${evil}` })}\n${s({ type: 'user', text: `go${evil}` })}\n`;
    for (let i = 0; i < 4; i++) {
      text += `${s({ type: 'assistant', text: `Let me try that again${evil}.`, thinking: [{ text: `think${evil}` }], tool_calls: [{ id: `c${i}`, name: `tool${evil}`, arguments: { p: evil } }] })}\n`;
      text += `${s({ type: 'tool_result', id: `c${i}`, content: `error${evil}`, is_error: true })}\n`;
    }
    text += `{"type":"assistant","text":"${'\\u001b'}[31m broken ${evil}\n`;
    const path = tmp.file(`evil${ESC}[31m.jsonl`, text);
    const unknown = tmp.file(`unknown${ESC}]0;x\u0007.json`, s({ [`key${evil}`]: 1 }));
    for (const format of REPORT_FORMATS) {
      const r = await runLoopledger([path, unknown, '--format', format, '--excerpts', '--verbose', '--explain']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.includes(0x1b), `${format}: ESC in stdout`).toBe(false);
      expect(r.stderr.includes(ESC), `${format}: ESC in stderr`).toBe(false);
      expect(r.stdout.toString('utf8')).not.toMatch(TERMINAL_CONTROL);
      expect(r.stderr).not.toMatch(TERMINAL_CONTROL);
      // The diagnostics still say which file and line, in a visible form.
      expect(r.stderr).toMatch(/evil.*\.jsonl:\d+: /);
    }
    // With colour forced, the only escape sequences are the tool's own colours.
    for (const format of ['table', 'markdown']) {
      const r = await runLoopledger([path, unknown, '--format', format, '--color', '--excerpts']);
      expect(r.code, r.stderr).toBe(0);
      const stripped = r.stdout.toString('utf8').replace(/\u001b\[[0-9;]*m/g, '');
      expect(stripped).not.toMatch(TERMINAL_CONTROL);
    }
  });

  it('"an unrecognized JSON document" is named, and the other inputs are analyzed', async () => {
    const doc = tmp.file('settings.json', JSON.stringify({ editor: { tabSize: 2 }, recent: ['a', 'b'] }, null, 2));
    const arr = tmp.file('numbers.json', '[1, 2, 3]\n');
    const good = tmp.file('good-beside-unknown.jsonl', LOOPING);
    const r = await runLoopledger([doc, arr, good, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${doc}: not a recognized transcript format`);
    expect(r.stderr).toContain(`${arr}: not a recognized transcript format`);
    expect(report(r).sessions.map((s) => s.path)).toEqual([good]);
    const strict = await runLoopledger([doc, good, '--strict']);
    expect(strict.code).toBe(2);
  });

  it('"unknown record types" are skipped quietly and the known ones analyzed', async () => {
    const lines = [...LOOPING_LINES];
    lines.splice(3, 0, JSON.stringify({ type: 'telemetry-ping', sessionId: 'x', at: 1 }), JSON.stringify({ type: 'summary', summary: 'x', leafUuid: 'y' }));
    const r = await runLoopledger([tmp.file('unknown-types.jsonl', lines.join('\n') + '\n'), '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(shape(report(r))).toEqual(shape(cleanReport));
  });

  it('a directory mixing transcripts with other files: only .jsonl/.json are read, nested dirs searched, hidden files (.labels.json) skipped', async () => {
    // SPEC: "Paths may be files, directories (searched recursively for `.jsonl`/`.json`)".
    const dir = join(tmp.dir, 'mixed');
    mkdirSync(join(dir, 'nested', 'deeper'), { recursive: true });
    mkdirSync(join(dir, '.hidden-dir'), { recursive: true });
    writeFileSync(join(dir, 'a.jsonl'), readFileSync(join(FIXTURES, 'openai', 'looping-leap-day.jsonl')));
    writeFileSync(join(dir, 'nested', 'deeper', 'b.json'), readFileSync(join(FIXTURES, 'anthropic', 'calm-rename.json')));
    writeFileSync(join(dir, 'nested', 'C.JSONL'), readFileSync(join(FIXTURES, 'canonical', 'sessions.jsonl')));
    writeFileSync(join(dir, 'notes.txt'), 'not a transcript\n');
    writeFileSync(join(dir, 'README.md'), '# readme\n');
    writeFileSync(join(dir, 'run.log'), '{"type":"user"}\n');
    writeFileSync(join(dir, '.labels.json'), '{"x":"loop"}\n');
    writeFileSync(join(dir, '.hidden-dir', 'd.jsonl'), LOOPING);
    const r = await runLoopledger([dir, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const rep = report(r);
    expect(rep.inputs.map((i) => [i.path.slice(dir.length + 1), i.format])).toEqual([
      ['a.jsonl', 'openai'],
      [join('nested', 'C.JSONL'), 'canonical'],
      [join('nested', 'deeper', 'b.json'), 'anthropic'],
    ]);
  });

  it('"never modify an input": bytes and mtime unchanged after every format, --output-file and stdin', async () => {
    const path = tmp.file('untouched.jsonl', LOOPING);
    const past = new Date('2020-01-02T03:04:05Z');
    utimesSync(path, past, past);
    for (const format of REPORT_FORMATS) {
      const r = await runLoopledger([path, '--format', format, '--output-file', join(tmp.dir, `out.${format}`), '--excerpts']);
      expect(r.code, r.stderr).toBe(0);
    }
    await runLoopledger(['-', path], { stdin: LOOPING });
    expect(readFileSync(path).equals(LOOPING)).toBe(true);
    expect(statSync(path).mtime.getTime()).toBe(past.getTime());
  });
});

describe('stdin and jobs (the built CLI)', () => {
  it('"stdin is never read unless `-` is given": with a stdin that never closes, the run still finishes', async () => {
    const r = await runLoopledger([join(FIXTURES, 'canonical')], { stdin: 'open', timeoutMs: 20_000 });
    expect(r.signal, 'the CLI waited on stdin').toBeNull();
    expect(r.code, r.stderr).toBe(0);
  });

  it('`-` reads stdin; chunks written with pauses give the same ledger as one write', async () => {
    // SPEC: "the same transcript gives the same ledger, byte for byte, however the input is chunked."
    const whole = await runLoopledger(['-', '--format', 'json'], { stdin: LOOPING });
    expect(whole.code, whole.stderr).toBe(0);
    expect(report(whole).inputs[0]).toMatchObject({ path: '-', format: 'claude-code' });
    const pieces: Buffer[] = [];
    for (let at = 0, size = 1; at < LOOPING.length; at += size, size = (size * 7) % 4093 || 1) pieces.push(LOOPING.subarray(at, at + size));
    const chunked = await runLoopledger(['-', '--format', 'json'], { stdin: pieces });
    expect(chunked.code, chunked.stderr).toBe(0);
    expect(chunked.stdout.equals(whole.stdout)).toBe(true);
  });

  it('`--jobs 1` and `--jobs 2` give byte-identical JSON (and stderr) over fixtures/', async () => {
    // SPEC: "Inputs are processed in sorted order, so output is deterministic."; issue 8: "with output still in sorted, deterministic order".
    const one = await runLoopledger(['fixtures', '--format', 'json', '--jobs', '1'], { cwd: ROOT });
    const two = await runLoopledger(['fixtures', '--format', 'json', '--jobs', '2'], { cwd: ROOT });
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    expect(report(one).sessions.length).toBeGreaterThan(5);
    expect(two.stdout.equals(one.stdout)).toBe(true);
    expect(two.stderr).toBe(one.stderr);
  });

  it('`--jobs 2` over bad and good files alike: the same report and diagnostics, in the same order, as `--jobs 1`', async () => {
    // SPEC: "Inputs are processed in sorted order, so output is deterministic."
    const dir = join(tmp.dir, 'jobs-mix');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a-good.jsonl'), LOOPING);
    writeFileSync(join(dir, 'b-bad-middle.jsonl'), readFileSync(withBadMiddle()));
    writeFileSync(join(dir, 'c-binary.jsonl'), Buffer.from([0, 1, 2, 3, 0xff]));
    writeFileSync(join(dir, 'd-truncated.jsonl'), LOOPING.subarray(0, LOOPING.length - 30));
    writeFileSync(join(dir, 'e-unknown.json'), '{"x":1}');
    const one = await runLoopledger([dir, '--format', 'json', '--jobs', '1']);
    const two = await runLoopledger([dir, '--format', 'json', '--jobs', '2']);
    expect(one.code, one.stderr).toBe(0);
    expect(two.stdout.equals(one.stdout)).toBe(true);
    expect(two.stderr).toBe(one.stderr);
  });
});
