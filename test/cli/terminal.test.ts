// What reaches a terminal or a log: transcript text carrying escape sequences must arrive
// neutralized in every human format and on stderr; colour follows --color/--no-color, NO_COLOR,
// FORCE_COLOR and never reaches a machine format; a reader that closes the pipe early
// (`loopledger … | head`) ends the run quietly.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_FORMATS } from '../../src/vocabulary.js';
import { parseXml } from '../report/xml.js';
import { batch, canonical, ensureBuilt, parseLedger, repeat, runCli, scratch, spawnCli, type RunResult } from './helpers.js';

// OSC (retitles the terminal, BEL-terminated), CSI (colour, cursor), a bare BEL, C1 CSI.
const HOSTILE = '\x1b]0;pwned\x07\x1b[31mred\x1b[2J\x1b[0m\x07\x9b2J';
/** Anything a terminal may act on: C0 except newline, DEL, C1. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const LOOPING = 'fixtures/openai/looping-leap-day.jsonl';

const tmp = scratch('loopledger-cli-terminal-');
let hostileDir: string;
let bigFile: string;

beforeAll(() => {
  ensureBuilt();
  const tool = `run${HOSTILE}`;
  // Repeated visible text, so the output detector fires and --excerpts has looped text to show.
  const text = `Let me try ${HOSTILE} the same fix again now, one more time please.`;
  const events = Array.from({ length: 8 }, () => batch([[tool, { x: HOSTILE }]], [`out${HOSTILE}`], text));
  tmp.write(
    `hostile/evil${HOSTILE}.jsonl`,
    canonical([{ id: `sess${HOSTILE}|x`, events, model: `model${HOSTILE}` }]) + `{"type":"user", broken ${HOSTILE}\n`,
  );
  hostileDir = `${tmp.dir}/hostile`;
  // Big enough that the payload outlasts a pipe buffer many times over.
  bigFile = tmp.write('big.jsonl', canonical([{ id: 'big', events: repeat([['write_file', { p: 1 }]], 1200, 'same') }]));
});

afterAll(() => tmp.cleanup());

function expectClean(label: string, text: string): void {
  const m = CONTROL.exec(text);
  expect(m, `${label}: control character U+${m?.[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${m?.index}: ${JSON.stringify(text.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 20))}`).toBeNull();
}

describe.concurrent('escape sequences from a transcript never reach the terminal raw', () => {
  it.each([
    ['table', []],
    ['table', ['--excerpts', '--explain', '--verbose']],
    ['markdown', []],
    ['markdown', ['--excerpts', '--explain']],
    ['github', []],
    ['github', ['--excerpts']],
  ])('--format %s %j: no control character on stdout or stderr', async (format, extra) => {
    const r = await runCli([hostileDir, '--format', format, ...extra, '--jobs', '1']);
    expect(r.code, r.stderr).toBe(0);
    expectClean('stdout', r.stdout);
    expectClean('stderr', r.stderr);
    // Neutralized, not dropped: a reader still sees that something was there.
    expect(r.stdout).toContain('\\x1b');
    expect(r.stdout).toMatch(/sess\\{1,2}x1b/);
    // The malformed line is reported on stderr with the (neutralized) file name.
    expect(r.stderr).toMatch(/evil\\x1b.*\.jsonl:\d+: /);
    if (extra.includes('--excerpts') && format !== 'github') expect(r.stdout).toMatch(/excerpt: /);
    if (format === 'markdown') {
      // A `|` in the session id must not split the cell: the sessions table keeps its 10 columns (cut is the tenth).
      const row = r.stdout.split('\n').find((l) => l.startsWith('| sess') && !l.startsWith('| sessions |'))!;
      expect(row.match(/(?<!\\)\|/g)).toHaveLength(11);
    }
  });

  it('the table shows the tool name neutralized in --explain evidence', async () => {
    const r = await runCli([hostileDir, '--explain', '--jobs', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('tools=run\\x1b]0;pwned\\x07');
  });

  it('json, ndjson, sarif and junit carry no raw control character either; json keeps the text losslessly', async () => {
    const [json, ndjson, sarif, junit] = await Promise.all(
      ['json', 'ndjson', 'sarif', 'junit'].map((f) => runCli([hostileDir, '--format', f, '--excerpts', '--jobs', '1'])),
    );
    for (const [name, r] of [['json', json], ['ndjson', ndjson], ['sarif', sarif], ['junit', junit]] as const) {
      expect(r!.code, `${name}: ${r!.stderr}`).toBe(0);
      expectClean(name, r!.stdout);
    }
    const s = parseLedger(json!).sessions[0]!;
    expect(s.id).toBe(`sess${HOSTILE}|x`);
    // SPEC: "at most 3 excerpts of at most 80 characters per entry".
    const excerpts = s.entries.map((e) => e.excerpts ?? []);
    expect(excerpts.some((x) => x.length > 0)).toBe(true);
    for (const x of excerpts) {
      expect(x.length).toBeLessThanOrEqual(3);
      for (const t of x) expect([...t].length).toBeLessThanOrEqual(80);
    }
    expect(s.model).toBe(`model${HOSTILE}`);
    expect(s.entries.some((e) => e.evidence['tools'] === `run${HOSTILE}`)).toBe(true);
    for (const line of ndjson!.stdout.trim().split('\n')) expect(JSON.parse(line).session).toBe(`sess${HOSTILE}|x`);
    JSON.parse(sarif!.stdout);
    parseXml(junit!.stdout);
  });

  it('a hostile path that cannot be read: the diagnostic is neutralized', async () => {
    const r = await runCli([`${tmp.dir}/missing${HOSTILE}.jsonl`, LOOPING, '--jobs', '1']);
    expect(r.code).toBe(2);
    expectClean('stderr', r.stderr);
    expectClean('stdout', r.stdout);
    expect(r.stderr).toMatch(/missing\\x1b\]0;pwned\\x07.*no such file/);
  });

  it('usage errors echo hostile arguments neutralized (an unknown flag, a bad --format value)', async () => {
    const [flag, format] = await Promise.all([
      runCli([`--bad${HOSTILE}`, LOOPING]),
      runCli(['--format', `x${HOSTILE}`, LOOPING]),
    ]);
    for (const r of [flag, format]) {
      expect(r.code).toBe(2);
      expectClean('stderr', r.stderr);
      expect(r.stderr).toContain('\\x1b]0;pwned\\x07');
    }
  });
});

describe.concurrent('width', () => {
  it.each([[40], [72], [140]])('the table fits COLUMNS=%i when stdout is no terminal, hostile names included', async (width) => {
    const r = await runCli([LOOPING, hostileDir, '--explain', '--jobs', '1'], { env: { COLUMNS: String(width) } });
    expect(r.code, r.stderr).toBe(0);
    const widest = Math.max(...r.stdout.split('\n').map((l) => [...l].length));
    expect(widest).toBeLessThanOrEqual(width);
  });
});

describe.concurrent('colour', () => {
  const ESC = '\x1b';
  const noColorEnv = { NO_COLOR: undefined };

  it('NO_COLOR=1 (and a pipe): no escape in the table', async () => {
    const r = await runCli([LOOPING]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('stop');
    expect(r.stdout).not.toContain(ESC);
  });

  it('FORCE_COLOR=1 colours the table (a stop in red) even through a pipe', async () => {
    const r = await runCli([LOOPING], { env: { ...noColorEnv, FORCE_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${ESC}[31m`);
    expect(r.stdout).toMatch(/\x1b\[31m(\x1b\[1m)?stop/);
  });

  it('FORCE_COLOR=1 never reaches a machine format', async () => {
    const formats = REPORT_FORMATS.filter((f) => f !== 'table');
    const runs = await Promise.all(formats.map((f) => runCli([LOOPING, '--format', f], { env: { ...noColorEnv, FORCE_COLOR: '1' } })));
    runs.forEach((r: RunResult, i) => {
      expect(r.code).toBe(0);
      expect(r.stdout, formats[i]).not.toContain(ESC);
    });
  });

  it('--no-color beats FORCE_COLOR; NO_COLOR beats FORCE_COLOR; --color beats NO_COLOR', async () => {
    const [flag, env, force] = await Promise.all([
      runCli([LOOPING, '--no-color'], { env: { ...noColorEnv, FORCE_COLOR: '1' } }),
      runCli([LOOPING], { env: { NO_COLOR: '1', FORCE_COLOR: '1' } }),
      runCli([LOOPING, '--color'], { env: { NO_COLOR: '1' } }),
    ]);
    expect(flag.stdout).not.toContain(ESC);
    expect(env.stdout).not.toContain(ESC);
    expect(force.stdout).toContain(ESC);
  });

  it('--output-file: no colour from TTY detection; a machine format stays plain even under FORCE_COLOR', async () => {
    const table = `${tmp.dir}/table.txt`;
    const json = `${tmp.dir}/ledger.json`;
    const [t, j] = await Promise.all([
      runCli([LOOPING, '--output-file', table], { env: noColorEnv }),
      runCli([LOOPING, '--json', '--output-file', json], { env: { ...noColorEnv, FORCE_COLOR: '1' } }),
    ]);
    expect(t.code).toBe(0);
    expect(j.code).toBe(0);
    expect(readFileSync(table, 'utf8')).toContain('stop');
    expect(readFileSync(table, 'utf8')).not.toContain(ESC);
    expect(readFileSync(json, 'utf8')).not.toContain(ESC);
  });
});

describe.concurrent('a reader that closes the pipe early (`| head`)', () => {
  /** Read the first chunk, then close our end, as `head -c` does once it has enough. */
  function closeAfterFirstChunk(args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string; got: number }> {
    return new Promise((resolve, reject) => {
      const child = spawnCli(args);
      let got = 0;
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.stdout.once('data', (c: Buffer) => {
        got = c.length;
        child.stdout.destroy();
      });
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stderr, got }));
      child.stdin.end();
    });
  }

  it.each([['table'], ['ndjson'], ['markdown']])('--format %s: ends quietly with exit 0, no stack trace', async (format) => {
    const r = await closeAfterFirstChunk([bigFile, '--format', format, '--jobs', '1']);
    expect(r.got).toBeGreaterThan(0);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('keeps the --fail-on exit code when the reader goes away', async () => {
    const r = await closeAfterFirstChunk([bigFile, '--format', 'ndjson', '--fail-on', 'stop', '--jobs', '1']);
    expect(r.stderr).not.toMatch(/EPIPE|Error|\n\s+at /);
    // The verdict is known before the payload is written; a closed pipe must not turn it into 0.
    expect(r.code).toBe(1);
  });
});
