// `npm run bench -- --only real --runs 2` (the docs' own commands): npm appends the arguments to the
// script's last command, so they must reach bench/run.mjs, not the hook benches after it (which
// took `real` for an agent's name and crashed).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const plan = (...args: string[]) => execFileSync(process.execPath, [join(ROOT, 'bench', 'all.mjs'), '--print', ...args], { encoding: 'utf8' }).trim().split('\n');

describe('npm run bench', () => {
  it('hands its arguments to bench/run.mjs, the last command of the script', () => {
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['bench']!;
    expect(script.split('&&').at(-1)!.trim()).toBe('node bench/all.mjs');
    expect(plan('--runs', '2', '--against', '../x')).toEqual(['node bench/run.mjs --runs 2 --against ../x', 'node bench/hook.mjs', 'node bench/agents-latency.mjs']);
  });

  it('with --only, times only the corpora asked for', () => {
    expect(plan('--only', 'real,codex', '--runs', '2')).toEqual(['node bench/run.mjs --only real,codex --runs 2']);
  });
});
