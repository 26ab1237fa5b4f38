// runCli calls the built `main` in the test's worker instead of starting a process for each run
// (test/cli/helpers.ts, issue 57 item 6). It stands for the binary only while both give the same
// bytes and exit code: checked here on a run of each command, a usage error and a failing gate.

import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, needsProcess, runCli, runProcess, scratch } from './helpers.js';

const RUNS: readonly (readonly string[])[] = [
  ['fixtures/claude-code', '--format', 'json'],
  ['fixtures/openai', '--format', 'table', '--excerpts'],
  ['fixtures/calibration/anthropic', '--format', 'markdown', '--fail-on', 'steer'],
  ['fixtures/gemini', '--format', 'sarif'],
  ['sweep', 'fixtures/openai', '--param', 'tool_batch.max_strikes=2:3:1'],
  ['config', '--no-config'],
  ['formats'],
  ['--version'],
  ['analyze', '--format', 'nope', 'fixtures'],
  ['merge', 'no/such/ledger.json'],
  ['analyze', '--top'],
];

describe('a run in the worker is the run of the binary', () => {
  beforeAll(() => ensureBuilt());

  it.each(RUNS.map((args) => [args.join(' '), args] as const))('%s: the same stdout, stderr and exit code', async (_, args) => {
    expect(needsProcess(args)).toBeNull();
    const [inWorker, process] = await Promise.all([runCli(args), runProcess(args)]);
    expect(inWorker.stdout).toBe(process.stdout);
    expect(inWorker.stderr).toBe(process.stderr);
    expect(inWorker.code).toBe(process.code);
  });

  it('the environment given reaches the run, not the worker\'s: HOME names the stores found by default', async () => {
    const home = scratch('loopledger-inworker-');
    try {
      home.write('.claude/projects/p/s.jsonl', '');
      const args = ['stores', '--format', 'json'];
      const env = { HOME: home.dir, XDG_CONFIG_HOME: undefined, CLAUDE_CONFIG_DIR: undefined };
      const [inWorker, process] = await Promise.all([runCli(args, { env }), runProcess(args, { env })]);
      expect(inWorker.stdout).toBe(process.stdout);
      expect(inWorker.stdout).toContain('.claude/projects');
    } finally {
      home.cleanup();
    }
  });

  it('hook install, doctor and uninstall from another folder (CliIO.cwd): the same bytes and files as the binary run there', async () => {
    const tmp = scratch('loopledger-inworker-hook-');
    try {
      const home = join(tmp.dir, 'home');
      const env = { HOME: home, XDG_STATE_HOME: `${home}/.state` };
      const results = [];
      for (const [how, run] of [['worker', runCli], ['process', runProcess]] as const) {
        const cwd = join(tmp.dir, how);
        mkdirSync(cwd);
        const steps = [];
        for (const args of [['hook', 'install', 'claude-code', '--state-dir', 'st', '--write'], ['hook', 'doctor', 'claude-code'], ['hook', 'uninstall', 'claude-code', '--write']]) {
          const r = await run(args, { cwd, env });
          const shown = (text: string) => text.split(cwd).join('<cwd>').replace(/answered in \d+ ms/g, 'answered in N ms');
          steps.push({ code: r.code, stdout: shown(r.stdout), stderr: shown(r.stderr) });
          if (args[1] === 'install') steps.push(readFileSync(join(cwd, '.claude/settings.json'), 'utf8').split(cwd).join('<cwd>'));
        }
        results.push(steps);
      }
      expect(needsProcess(['hook', 'install', 'claude-code'], { cwd: '/' })).toBeNull();
      expect(results[0]![0]).toMatchObject({ code: 0 });
      expect(results[0]![1]).toContain('<cwd>/st');
      expect(results[0]).toEqual(results[1]);
    } finally {
      tmp.cleanup();
    }
  });

  it('what only a process can give runs as one, and says why', () => {
    expect(needsProcess(['-'], { stdin: '' })).toMatch(/standard stream/);
    expect(needsProcess(['fixtures'], { stdin: '{}' })).toMatch(/stdin/);
    expect(needsProcess(['hook', 'claude-code'])).toMatch(/payload/);
    expect(needsProcess(['hook', 'install', 'codex'])).toBeNull();
    expect(needsProcess(['fixtures'], { cwd: '/' })).toMatch(/directory/);
    expect(needsProcess(['fixtures'], { env: { NODE_OPTIONS: '--max-old-space-size=64' } })).toMatch(/NODE_OPTIONS/);
    expect(needsProcess(['fixtures'], { env: { TZ: 'Asia/Tokyo' } })).toMatch(/TZ/);
  });
});
