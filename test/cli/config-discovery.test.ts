// SPEC 0.4 "Config discovery": "Without `--config`: `./loopledger.json`, then `./.loopledger.json`, then
// `$XDG_CONFIG_HOME/loopledger/config.json` (else `~/.config/loopledger/config.json`); `loopledger config`
// names the file used. `--config` and `LOOPLEDGER_CONFIG` override; `--no-config` uses the defaults."

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from './helpers.js';

const FIXTURE = join(ROOT, 'fixtures', 'claude-code', 'looping-test-fix.jsonl');

interface ConfigJson {
  file: string | null;
  file_from: string;
  searched: string[];
  config: Record<string, unknown>;
}

let space: ReturnType<typeof scratch>;
afterEach(() => space?.cleanup());
beforeAll(ensureBuilt);

/** A folder to run in, and a home with no config, so the user's own never leaks in. */
function folder() {
  space = scratch('loopledger-discovery-');
  const cwd = join(space.dir, 'project');
  const home = join(space.dir, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: undefined, LOOPLEDGER_CONFIG: undefined };
  return { cwd, home, env };
}

const put = (path: string, mode: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, JSON.stringify({ mode }));
};

async function configIn(cwd: string, env: Record<string, string | undefined>, ...args: string[]): Promise<ConfigJson> {
  const r = await runCli(['config', '--json', ...args], { cwd, env });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ConfigJson;
}

describe('a config file is found without --config', () => {
  it('takes ./loopledger.json before ./.loopledger.json before the user config folder, and names it', async () => {
    const { cwd, home, env } = folder();
    const none = await configIn(cwd, env);
    expect(none.file).toBeNull();
    expect(none.searched).toEqual(['./loopledger.json', './.loopledger.json', '~/.config/loopledger/config.json']);

    put(join(home, '.config', 'loopledger', 'config.json'), 'off');
    expect((await configIn(cwd, env)).config['mode']).toBe('off');
    put(join(cwd, '.loopledger.json'), 'enforce');
    expect((await configIn(cwd, env)).file).toBe(join(cwd, '.loopledger.json'));
    put(join(cwd, 'loopledger.json'), 'telemetry');
    const found = await configIn(cwd, env);
    expect(found.file).toBe(join(cwd, 'loopledger.json'));
    expect(found.file_from).toBe('found');
    expect(found.config['mode']).toBe('telemetry');

    const table = await runCli(['config'], { cwd, env });
    expect(table.stdout.split('\n')[0]).toContain(`config file: ${join(cwd, 'loopledger.json')} (found)`);
  });

  it('uses $XDG_CONFIG_HOME when set; --config and LOOPLEDGER_CONFIG override; --no-config gives the defaults', async () => {
    const { cwd, env } = folder();
    const xdg = join(cwd, '..', 'xdg');
    put(join(xdg, 'loopledger', 'config.json'), 'enforce');
    expect((await configIn(cwd, { ...env, XDG_CONFIG_HOME: xdg })).config['mode']).toBe('enforce');

    put(join(cwd, 'loopledger.json'), 'enforce');
    const other = join(cwd, '..', 'other.json');
    put(other, 'off');
    expect((await configIn(cwd, { ...env, LOOPLEDGER_CONFIG: other })).config['mode']).toBe('off');
    const flagged = await configIn(cwd, env, '--config', other);
    expect(flagged.file_from).toBe('--config');
    expect(flagged.config['mode']).toBe('off');
    const bare = await configIn(cwd, env, '--no-config');
    expect(bare.file).toBeNull();
    expect(bare.config['mode']).toBe('telemetry');
  });

  it('is what a plain analyze in that folder runs with', async () => {
    const { cwd, env } = folder();
    put(join(cwd, 'loopledger.json'), 'enforce');
    const r = await runCli([FIXTURE, '--json'], { cwd, env });
    expect((JSON.parse(r.stdout) as { config: Record<string, unknown> }).config['mode']).toBe('enforce');
    const bare = await runCli([FIXTURE, '--json', '--no-config'], { cwd, env });
    expect((JSON.parse(bare.stdout) as { config: Record<string, unknown> }).config['mode']).toBe('telemetry');
  });
});
