// Issue 56 item 2: "The tool batch's row names what was repeated (tool and a short, sanitized
// argument, e.g. `Bash(ls -la …/src)`)". Through the built binary: the literal command, long paths
// cut to their last part, never an escape, never a file's content, within the terminal's width.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batch, claudeCode, ensureBuilt, parseLedger, runCli, scratch, user, type Call, type Event } from './helpers.js';

const dir = scratch('loopledger-repeated-call-');
const times = (calls: readonly Call[], n: number): Event[] => Array.from({ length: n }, () => batch(calls, calls.map(() => 'same answer')));

let ls = '';
let hostile = '';
let write = '';
beforeAll(() => {
  ensureBuilt();
  ls = dir.write('ls.jsonl', claudeCode(times([['Bash', { command: 'ls -la /home/alex/projects/webapp/src' }]], 4)));
  // An ESC, a C1 CSI, a bidi override and a very long tail: none of it may reach the terminal raw.
  hostile = dir.write('hostile.jsonl', claudeCode(times([['Bash', { command: `echo \u001b]0;owned\u0007 \u009b31m \u202eevil ${'x'.repeat(5_000)}` }]], 4)));
  // A Write repeated: its path is what it acted on; its content is the looped text and never shown.
  write = dir.write(
    'write.jsonl',
    claudeCode([user('write it'), ...times([['Write', { file_path: '/home/alex/projects/webapp/src/index.ts', content: 'SECRET CONTENT' }]], 4)]),
  );
});
afterAll(() => dir.cleanup());

const rowsOf = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('│') && !/│ kind /.test(l));
const widest = (text: string) => text.split('\n').reduce((w, l) => Math.max(w, [...l].length), 0);

describe("a tool batch's row names the call it repeated", () => {
  it('at 160 columns: the tool and its command, the long path cut to its last part', async () => {
    const r = await runCli([ls], { env: { COLUMNS: '160' } });
    expect(r.code, r.stderr).toBe(0);
    const rows = rowsOf(r.stdout);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toContain('Bash(ls -la …/src)');
  });

  it('at 80 columns: the row still starts with the tool and its command, and fits', async () => {
    const r = await runCli([ls], { env: { COLUMNS: '80' } });
    expect(r.code, r.stderr).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
    for (const row of rowsOf(r.stdout)) expect(row).toMatch(/│ Bash\(ls -la …/);
  });

  it('the JSON carries the same short call beside the shape', async () => {
    const ledger = parseLedger(await runCli([ls, '--json']));
    const entry = ledger.sessions[0]!.entries.find((e) => e.kind === 'repeated_batch') as { shape?: string; call?: string };
    expect(entry.shape).toBe('Bash(ls)');
    expect(entry.call).toBe('Bash(ls -la …/src)');
  });

  it('a hostile command is sanitized and bounded: no escape, C1 or bidi character, no long tail', async () => {
    const r = await runCli([hostile], { env: { COLUMNS: '160' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u001b\u0007\u0080-\u009f\u202a-\u202e]/);
    const rows = rowsOf(r.stdout);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toContain('Bash(echo \\x1b]0;owned\\x07');
      expect(row).not.toContain('x'.repeat(60));
    }
    expect(widest(r.stdout)).toBeLessThanOrEqual(160);
  });

  it("a repeated Write names its file, never its content (that is --excerpts' to show)", async () => {
    const r = await runCli([write], { env: { COLUMNS: '160' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Write(…/index.ts)');
    expect(r.stdout).not.toContain('SECRET');
    const json = await runCli([write, '--json']);
    expect(json.stdout).not.toContain('SECRET');
  });
});
