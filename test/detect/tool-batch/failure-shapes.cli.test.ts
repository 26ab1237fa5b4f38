// Issue 54 items 3-5 through the CLI, on small Claude Code and Codex sessions modelled on the
// shapes the issue describes: the loops steer at their third attempt and stop only after unheeded
// steers; the work around them (a different edit that lands, a fix between retries, searches that
// find nothing, polls of a live job, narrated reasoning beside varied work) raises nothing.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../../cli/helpers.js';

// It runs or reads the build: the build of src/ as it is now, even when this file runs alone.
beforeAll(() => ensureBuilt());

const dir = mkdtempSync(path.join(tmpdir(), 'failure-shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Step {
  calls: { name: string; input: Record<string, unknown>; answer: string; error?: boolean }[];
  /** One thinking block, or several in the one response. */
  thinking?: string | string[];
  text?: string;
}

/** A Claude Code session: one user prompt, then one assistant message and its results per step. */
function claudeSession(name: string, steps: Step[]): string {
  const sessionId = '5e1c0a2b-0000-4000-8000-0000000000aa';
  const base = { isSidechain: false, userType: 'external', cwd: '/home/u/app', sessionId, version: '2.1.40' };
  const lines: unknown[] = [];
  let n = 0;
  let parent: string | null = null;
  const push = (o: Record<string, unknown>) => {
    n += 1;
    const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    lines.push({ parentUuid: parent, ...base, uuid, timestamp: new Date(Date.UTC(2026, 4, 6, 10, 0, n)).toISOString(), ...o });
    parent = uuid;
  };
  push({ type: 'user', message: { role: 'user', content: 'Fix the failing build' } });
  steps.forEach((step, i) => {
    const content: unknown[] = [];
    for (const thinking of [step.thinking ?? []].flat()) content.push({ type: 'thinking', thinking, signature: 'sig' });
    if (step.text) content.push({ type: 'text', text: step.text });
    step.calls.forEach((c, j) => content.push({ type: 'tool_use', id: `toolu_${i}_${j}`, name: c.name, input: c.input }));
    push({ type: 'assistant', message: { model: 'claude-sonnet-4-5-20250929', id: `msg_${i}`, type: 'message', role: 'assistant', content, usage: { input_tokens: 10, output_tokens: 20 } } });
    push({
      type: 'user',
      message: { role: 'user', content: step.calls.map((c, j) => ({ type: 'tool_result', tool_use_id: `toolu_${i}_${j}`, content: c.answer, is_error: c.error === true })) },
    });
  });
  const file = path.join(dir, `${name}.jsonl`);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

/** A Codex rollout: one user prompt, then one `shell_command` call and its output per step. */
function codexSession(name: string, steps: { command: string; output: string; extra?: Record<string, unknown> }[]): string {
  const env = (type: string, payload: unknown) => ({ timestamp: '2026-02-01T12:00:00.000Z', type, payload });
  const records: unknown[] = [
    env('session_meta', { id: '0199b2e0-4a6c-7d18-b3f5-8e1a9c2d7faa', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.63.0' }),
    env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'find the lint config' }] }),
  ];
  steps.forEach((step, i) => {
    records.push(env('response_item', { type: 'function_call', name: 'shell_command', arguments: JSON.stringify({ command: step.command, workdir: '/w', ...step.extra }), call_id: `c${i}` }));
    records.push(env('response_item', { type: 'function_call_output', call_id: `c${i}`, output: step.output }));
  });
  const file = path.join(dir, `rollout-2026-02-01T12-00-00-${name}.jsonl`);
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/** What Codex's shell tool returns: its status lines, then the command's output. */
const codexOutput = (code: number, output: string) => `Exit code: ${code}\nWall time: 0.1 seconds\nOutput:\n${output}`;

interface Entry {
  kind: string;
  round: number;
  intervention: { enforce: string };
}

async function entries(file: string): Promise<Entry[]> {
  const run = await runCli([file, '--format', 'json'], { env: { XDG_CONFIG_HOME: dir, LOOPLEDGER_CONFIG: '' } });
  expect(run.stderr).toBe('');
  const report = JSON.parse(run.stdout) as { sessions: { entries: Entry[] }[] };
  return report.sessions.flatMap((s) => s.entries);
}

const raised = (es: Entry[]) => es.filter((e) => e.intervention.enforce === 'steer' || e.intervention.enforce === 'stop').map((e) => `${e.kind}@${e.round}:${e.intervention.enforce}`);

const edit = { name: 'Edit', input: { file_path: '/home/u/app/src/a.ts', old_string: 'const x = 1;', new_string: 'const x = 2;' } };
const notFound = 'String to replace not found in file.\nString: const x = 1;';
const read = (offset: number) => ({ name: 'Read', input: { file_path: '/home/u/app/src/a.ts', offset, limit: 40 }, answer: `${offset}\tline ${offset}\n${offset + 1}\tline ${offset + 1}` });

describe('repeated_failure: the same failing call again with reads between', () => {
  it('steers at the third identical failure, and stops only after the ladder’s unheeded steers', async () => {
    const steps: Step[] = [];
    for (let k = 0; k < 6; k++) {
      steps.push({ calls: [{ ...edit, answer: notFound, error: true }] });
      steps.push({ calls: [read(1 + 40 * k)] });
    }
    const got = raised((await entries(claudeSession('repeated-failure', steps))));
    // Rounds: edit 1, read 2, edit 3, read 4, edit 5 (third failure) …
    expect(got[0]).toBe('repeated_failure@5:steer');
    expect(got.filter((g) => g.endsWith(':stop'))).toEqual(['repeated_failure@11:stop']);
  });

  it('is quiet when an edit fails, the file is read, and a different edit lands', async () => {
    const steps: Step[] = [
      { calls: [{ ...edit, answer: notFound, error: true }] },
      { calls: [read(1)] },
      { calls: [{ ...edit, answer: notFound, error: true }] },
      { calls: [read(41)] },
      { calls: [{ name: 'Edit', input: { ...edit.input, old_string: 'const x  = 1;' }, answer: 'The file has been updated.' }] },
      { calls: [{ ...edit, answer: notFound, error: true }] },
    ];
    expect(raised((await entries(claudeSession('edit-lands', steps))))).toEqual([]);
  });

  it('is quiet on a test rerun after each real fix, and on parallel edits that fail and then succeed', async () => {
    const test = { name: 'Bash', input: { command: 'npm test' }, answer: 'Exit code 1\nFAIL src/a.test.ts\n  expected 2, got 1', error: true };
    const fix = (i: number) => ({ name: 'Edit', input: { file_path: '/home/u/app/src/a.ts', old_string: `v${i}`, new_string: `v${i + 1}` }, answer: 'The file has been updated.' });
    const steps: Step[] = [
      { calls: [test] },
      { calls: [fix(1)] },
      { calls: [test] },
      { calls: [fix(2)] },
      { calls: [test] },
      { calls: [fix(3)] },
      { calls: [test] },
      { calls: [{ ...edit, answer: notFound, error: true }, { ...edit, input: { ...edit.input, file_path: '/home/u/app/src/b.ts' }, answer: notFound, error: true }] },
      { calls: [read(1), read(41)] },
      { calls: [fix(4), { ...fix(5), input: { ...fix(5).input, file_path: '/home/u/app/src/b.ts' } }] },
    ];
    expect(raised((await entries(claudeSession('fix-between', steps))))).toEqual([]);
  });
});

describe('same_error: different calls answered with the same error in a row', () => {
  it('steers at the third different command answered alike (a deleted working directory)', async () => {
    const gone = 'Error: ENOENT: no such file or directory, uv_cwd';
    const commands = ['npm test', 'npm run build', 'ls', 'node -v', 'cd .. && pwd', 'git status'];
    const steps: Step[] = commands.map((command) => ({ calls: [{ name: 'Bash', input: { command }, answer: gone, error: true }] }));
    const got = raised((await entries(claudeSession('same-error', steps))));
    expect(got[0]).toBe('same_error@3:steer');
    expect(got.some((g) => g.endsWith(':stop'))).toBe(true);
  });

  it('is quiet on different searches that find nothing (exit 1, no output), which are answers, not failures', async () => {
    const patterns = ['oldHelper', 'legacyFetch', 'TODO\\(remove\\)', 'deprecatedApi', 'fooBarBaz', 'unusedConst', 'removedFlag'];
    const steps: Step[] = patterns.map((p) => ({ calls: [{ name: 'Bash', input: { command: `rg -n '${p}' src` }, answer: 'Exit code 1', error: true }] }));
    expect((await entries(claudeSession('nothing-found', steps))).map((e) => e.kind)).toEqual([]);
  });
});

describe('answers read for what they say (issue 54 item 4)', () => {
  // A shell profile that fails the same way before every command (Homebrew's shellenv on a
  // sandboxed macOS), as in a public Codex store.
  const banner = '/opt/homebrew/Library/Homebrew/cmd/shellenv.sh: line 18: /bin/ps: Operation not permitted\n';

  it('a start-up banner every command prints is no error: searches that find nothing after it are answers', async () => {
    const steps = [
      { command: 'ls -1 specs', output: codexOutput(0, `${banner}tree-api.md\n`) },
      { command: 'cat specs/tree-api.md', output: codexOutput(0, `${banner}# Contracts\n`) },
      ...["rg --files -g '.eslintrc*'", "rg --files -g 'eslint.config.*'", "rg --files -g '*eslint*' frontend", "rg -n 'lint' package.json"].map((command) => ({ command, output: codexOutput(1, banner) })),
    ];
    expect((await entries(codexSession('banner-searches', steps))).map((e) => `${e.kind}@${e.round}`)).toEqual([]);
  });

  it('the banner does not hide a real error: different commands failing alike after it still steer at the third', async () => {
    const gone = 'fatal: not a git repository (or any of the parent directories): .git\n';
    const steps = [
      { command: 'ls', output: codexOutput(0, `${banner}src\n`) },
      ...['git status', 'git log -1', 'git diff --stat', 'git branch'].map((command) => ({ command, output: codexOutput(128, `${banner}${gone}`) })),
    ];
    expect(raised((await entries(codexSession('banner-real-error', steps))))[0]).toBe('same_error@4:steer');
  });

  it('a pipeline that ends in a filter and exits 1 with no output found nothing (git branch | rg …)', async () => {
    const steps = ['git ls-remote --heads origin | rg -n "stt-api$"', 'git branch | rg -n "^[* ]*[0-9]+-stt-api$"', 'ls -a specs | rg -n "^[0-9]+-stt-api$"', 'ps aux | grep -v grep | grep vite'].map((command) => ({
      command,
      output: codexOutput(1, ''),
    }));
    expect((await entries(codexSession('pipeline-searches', steps))).map((e) => `${e.kind}@${e.round}`)).toEqual([]);
  });

  it('searches run through a Windows shell (pwsh -Command, cmd /c) that exit 1 with no output found nothing', async () => {
    const scripts = [
      ['pwsh.exe', '-Command', 'rg "\\[object Object\\]" -n frontend src'],
      ['pwsh.exe', '-NoLogo', '-Command', 'rg "G\\[" -n .'],
      ['powershell.exe', '-NoLogo', '-NoProfile', '-Command', 'Set-Location app; rg -n "legacyFetch" src'],
      ['cmd.exe', '/c', 'findstr /s /n "oldHelper" *.ts'],
    ];
    const steps = scripts.map((argv) => ({ command: argv.join(' '), output: codexOutput(1, ''), extra: { command: argv } }));
    expect((await entries(codexSession('windows-searches', steps))).map((e) => `${e.kind}@${e.round}`)).toEqual([]);
  });

  it('different calls refused by a permission mode: three then one that works is quiet; four in a row steer at the fourth', async () => {
    const denied = 'Permission for this tool use was denied. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). Try a different approach.';
    const refused = (command: string) => ({ calls: [{ name: 'Bash', input: { command }, answer: denied, error: true }] });
    const probing: Step[] = [refused('cat notes/README.md'), refused('cat "notes/ README.md"'), refused('ls notes'), { calls: [{ name: 'Bash', input: { command: 'ls' }, answer: 'notes\nsrc' }] }];
    expect(raised((await entries(claudeSession('refused-probing', probing))))).toEqual([]);
    const walled: Step[] = ['echo $VIRTUAL_ENV', 'ls venv', 'find . -name activate', 'python -V', 'which python'].map(refused);
    expect(raised((await entries(claudeSession('refused-walled', walled))))[0]).toBe('same_error@4:steer');
  });

  it('a command the user rejected, re-sent with trivial changes, steers at the third rejection in a row', async () => {
    // Codex writes a rejection as plain output, no exit code: "exec command rejected by user".
    const script = "python - <<'PY'\nimport re\nprint(re.search(r'def init', open('cli.py').read()))\nPY";
    const steps = [
      { command: 'rg "def init" cli.py', output: 'exec command rejected by user' },
      { command: script, output: 'exec command rejected by user' },
      { command: script, output: 'exec command rejected by user', extra: { with_escalated_permissions: true, justification: 'Need to read the file' } },
    ];
    expect(raised((await entries(codexSession('rejected-resent', steps))))).toEqual(['same_error@3:steer']);
  });
});

describe('narrated reasoning beside varied, answered work', () => {
  it('one "Now let me …" sentence a round, each about a different successful read, never steers', async () => {
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    const steps: Step[] = files.map((f) => ({
      thinking: `Now let me check ${f}.ts to see how it handles the config.`,
      calls: [{ name: 'Read', input: { file_path: `/home/u/app/src/${f}.ts` }, answer: `1\texport const ${f} = load('${f}');` }],
    }));
    expect(raised((await entries(claudeSession('narration', steps))))).toEqual([]);
  });

  it('the same narration, then a closing summary that calls nothing, never steers (in reasoning or in text)', async () => {
    // The summary round has no tool work of its own; the openings that cross the bar are the earlier rounds'.
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const steps: Step[] = files.map((f) => ({
      thinking: `Now let me check ${f}.ts to see how it handles the config.`,
      text: `Now let me read ${f}.ts next.`,
      calls: [{ name: 'Read', input: { file_path: `/home/u/app/src/${f}.ts` }, answer: `1\texport const ${f} = load('${f}');` }],
    }));
    steps.push({ thinking: 'Now let me write the summary of what each file does.', text: 'Now let me sum it up. Every file loads its own config through load().', calls: [] });
    const got = (await entries(claudeSession('narration-then-summary', steps)));
    expect(got.some((e) => e.kind === 'connector_stalling')).toBe(true);
    expect(raised(got)).toEqual([]);
  });

  it('a closing response whose own reasoning re-opens sentence after sentence with "Wait," still steers', async () => {
    const steps: Step[] = [
      { calls: [{ name: 'Read', input: { file_path: '/home/u/app/src/a.ts' }, answer: '1\tconst a = 1;' }] },
      {
        thinking: 'Wait, the value is one. Wait, maybe it is two. Wait, the file said one. Wait, but the test wants two. Wait, I should check again. Wait, no.',
        calls: [],
      },
    ];
    expect(raised((await entries(claudeSession('wait-closing', steps))))).toContain('connector_stalling@2:steer');
  });

  it('a response whose reasoning restates its plan, block after block, beside a new call answered anew is noted, never steered', async () => {
    // Gemini CLI's thought summaries: one response, many blocks saying the same plan; the work moves on.
    const plan = 'Refining Layout Structure: I am adjusting the application layout so the profile panel docks on the left and the other panels on the right, with a minimum width for the main content.';
    const files = ['Layout', 'Panel', 'Profile', 'Settings'];
    const steps: Step[] = files.map((f) => ({
      thinking: [plan, plan, plan],
      calls: [{ name: 'Read', input: { file_path: `/home/u/app/src/${f}.tsx` }, answer: `1\texport function ${f}() { return null; }` }],
    }));
    const got = (await entries(claudeSession('restated-plan', steps)));
    expect(got.some((e) => e.kind === 'thinking_stagnation')).toBe(true);
    expect(got.filter((e) => e.kind === 'thinking_stagnation' && e.intervention.enforce !== 'noted').map((e) => `${e.round}:${e.intervention.enforce}`)).toEqual([]);
  });

  it('the same reasoning block repeated while the tools answer nothing new still steers', async () => {
    const plan = 'I am stuck: the file is not where I looked, so I will look in the same folder again to be sure it is not there.';
    const steps: Step[] = Array.from({ length: 4 }, () => ({ thinking: plan, calls: [{ name: 'Read', input: { file_path: '/home/u/app/src/a.ts' }, answer: '1\tconst a = 1;' }] }));
    expect(raised((await entries(claudeSession('stuck-reasoning', steps)))).some((g) => g.startsWith('thinking_stagnation@') || g.startsWith('repeated_batch@'))).toBe(true);
  });
});

describe('codex: polls of a process still running', () => {
  it('empty write_stdin polls answered "still running, no output" are waits: no repeated_batch, no stop', async () => {
    const env = (type: string, payload: unknown) => ({ timestamp: '2026-02-01T12:00:00.000Z', type, payload });
    const records: unknown[] = [
      env('session_meta', { id: '0199b2e0-4a6c-7d18-b3f5-8e1a9c2d7f99', cwd: '/w', originator: 'codex_cli_rs', cli_version: '0.63.0' }),
      env('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run the slow tests' }] }),
      env('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'npm run test:slow' }), call_id: 'c0' }),
      env('response_item', { type: 'function_call_output', call_id: 'c0', output: 'Chunk ID: a1\nWall time: 10.0 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\n' }),
    ];
    for (let i = 1; i <= 6; i++) {
      records.push(env('response_item', { type: 'function_call', name: 'write_stdin', arguments: JSON.stringify({ session_id: 7, chars: '', yield_time_ms: 30000 }), call_id: `c${i}` }));
      records.push(env('response_item', { type: 'function_call_output', call_id: `c${i}`, output: `Chunk ID: b${i}\nWall time: 30.0 seconds\nProcess running with session ID 7\nOriginal token count: 0\nOutput:\n` }));
    }
    records.push(env('response_item', { type: 'function_call', name: 'write_stdin', arguments: JSON.stringify({ session_id: 7, chars: '' }), call_id: 'c9' }));
    records.push(env('response_item', { type: 'function_call_output', call_id: 'c9', output: 'Chunk ID: z\nWall time: 3.0 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n42 passing\n' }));
    const file = path.join(dir, 'rollout-2026-02-01T12-00-00-0199b2e0-4a6c-7d18-b3f5-8e1a9c2d7f99.jsonl');
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect((await entries(file)).map((e) => `${e.kind}@${e.round}`)).toEqual([]);
  });
});

describe('a directory tree drawn outside a code fence is structure, not prose', () => {
  it('the same tree shown beside different work each round raises no text finding', async () => {
    const tree = ['├── src/', '│   ├── index.ts', '│   ├── config/', '│   │   ├── load.ts', '│   │   └── schema.ts', '│   └── util.ts', '├── test/', '│   └── load.test.ts', '└── package.json'].join('\n');
    const files = ['index', 'load', 'schema', 'util', 'load.test', 'package'];
    const steps: Step[] = files.map((f) => ({
      calls: [{ name: 'Read', input: { file_path: `/home/u/app/src/${f}.ts` }, answer: `1\texport const ${f.replace('.', '_')} = 1;` }],
    }));
    const said = ['First the entry point.', 'Then how the config is loaded.', 'Its schema.', 'The helpers.', 'What the test checks.', 'And the manifest.'];
    const withText = steps.map((s, i) => ({ ...s, text: `${said[i]}\n${tree}` }));
    expect((await entries(claudeSession('tree', withText))).map((e) => `${e.kind}@${e.round}`)).toEqual([]);
  });
});
