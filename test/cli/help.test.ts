// Every command and subcommand answers --help (issue 26: "`hook install --help` says 'unknown
// option --help'"; "Every subcommand answers `--help`"). The list is walked from the program
// commander builds, so a command added later is covered without touching this file.

import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { cliEnv, ensureBuilt, ROOT } from './helpers.js';

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
  it.each(['--help', '-h'])('%s: usage on stdout, exit 0', (flag) => {
    const r = spawnSync(process.execPath, [`${ROOT}/bin/loopledger.js`, ...path, flag], { cwd: ROOT, env: cliEnv(), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage:/m);
    expect(r.stdout).toContain(['loopledger', ...path].join(' '));
  });
});
