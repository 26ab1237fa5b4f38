// Every command and subcommand answers --help (issue 26: "`hook install --help` says 'unknown
// option --help'"; "Every subcommand answers `--help`"). The list is walked from the program
// commander builds, so a command added later is covered without touching this file.

import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { ensureBuilt, ROOT, runCli } from './helpers.js';

beforeAll(() => ensureBuilt());

function paths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {} };
const commands = paths(buildProgram(io, () => {}));

it('the walk finds the commands, the hook subcommands among them', () => {
  expect(commands).toEqual(expect.arrayContaining([['analyze'], ['hook'], ['hook', 'install'], ['hook', 'doctor'], ['config']]));
});

describe.each([[[] as string[]], ...commands.map((c) => [c])])('loopledger %s', (path) => {
  it.each(['--help', '-h'])('%s: usage on stdout, exit 0', async (flag) => {
    const r = await runCli([...path, flag]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage:/m);
    expect(r.stdout).toContain(['loopledger', ...path].join(' '));
  });
});

const run = async (...args: string[]) => {
  const r = await runCli(args);
  return { ...r, status: r.code };
};

// Issue 56 item 5: "`-v` as `--version`; top-level `--help` shows analyze's main options and three
// examples; subcommands list only options they honour", and "a short glossary in `--help`".
describe('words of the help', () => {
  it('-v, --version and the older -V all print the version, exit 0', async () => {
    const version = (await run('--version')).stdout;
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ['-v', '-V']) {
      const r = await run(flag);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(version);
    }
    expect((await run('--help')).stdout).toMatch(/^ {2}-v, --version/m);
  });

  it("top-level --help: analyze's main options, three examples that run, and the glossary", async () => {
    const help = (await run('--help')).stdout;
    for (const option of ['--format', '--fail-on', '--since', '--by', '--top', '--all', '--sort', '--excerpts']) expect(help).toContain(option);
    const examples = help.slice(help.indexOf('Examples:'), help.indexOf('Words:')).split('\n').filter((l) => /^ {2}loopledger\b/.test(l));
    expect(examples).toHaveLength(3);
    // Every example with options parses: a usage error would exit 2 before reading anything. (The
    // bare one reads this machine's stores.)
    for (const example of examples.filter((e) => e.trim() !== 'loopledger')) {
      const args = example.trim().split(/\s+/).slice(1).map((a) => (a.startsWith('~/') || a === 'runs/' ? join(ROOT, 'fixtures', 'claude-code') : a));
      const r = await run(...args, '--format', 'json', '--top', '1');
      expect(r.status, `${example}: ${r.stderr}`).not.toBe(2);
    }
    for (const word of ['session', 'turn', 'round', 'finding', 'calm', 'noted', 'steer', 'stop', 'Off', 'Telemetry', 'Enforce']) expect(help).toMatch(new RegExp(`\\b${word}\\b`));
    expect(Math.max(...help.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(80);
  });

  it('config and label list only the output flags they honour', async () => {
    const config = (await run('config', '--help')).stdout;
    expect(config).not.toContain('--quiet');
    expect(config).toMatch(/--verbose +the reason behind each default/);
    // label talks to a terminal of its own: no colour or quiet flag; --verbose names the files that are no transcript.
    const label = (await run('label', '--help')).stdout;
    for (const flag of ['--quiet', '--color']) expect(label).not.toContain(flag);
    expect(label).toMatch(/--verbose +name each file found that is no transcript/);
    const sweep = (await run('sweep', '--help')).stdout;
    expect(sweep).not.toContain('--quiet');
    // analyze keeps them all.
    const analyze = (await run('analyze', '--help')).stdout;
    for (const flag of ['--quiet', '--verbose', '--color']) expect(analyze).toContain(flag);
  });
});
