// The launcher in a checkout that was never built (no dist/): a clear line, not a stack trace; the
// hook still fails open, as it does for any failure of its own (docs/hook.md).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'loopledger-unbuilt-'));
mkdirSync(join(root, 'bin'));
copyFileSync('bin/loopledger.js', join(root, 'bin', 'loopledger.js'));
writeFileSync(join(root, 'package.json'), '{"type":"module"}');
afterAll(() => rmSync(root, { recursive: true, force: true }));

const run = (args: string[], input = '') =>
  spawnSync(process.execPath, [join(root, 'bin', 'loopledger.js'), ...args], { input, encoding: 'utf8' });

describe('the launcher without a build', () => {
  it('analyze: exit 2, one line naming the missing dist/ and the command that makes it', () => {
    const r = run(['fixtures']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`loopledger: ${join(root, 'dist')}/ is missing: run \`npm run build\` in this checkout first\n`);
  });

  it('hook install and hook doctor are typed by a person: exit 2 with the same line, like analyze', () => {
    for (const sub of ['install', 'doctor']) {
      const r = run(['hook', sub, 'claude-code']);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('is missing: run `npm run build`');
    }
  });

  it('hook: fails open (exit 0, nothing on stdout) so the agent is never blocked', () => {
    const r = run(['hook'], '{}');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('is missing');
  });
});

// Stand-ins for each entry, saying which it is: what matters here is which one the launcher loads.
const ENTRIES = [
  { who: "the guard's", args: ['hook', 'claude-code'], modules: ['hook', 'main.js'], bundle: 'hook.js' },
  { who: "the CLI's", args: ['--version'], modules: ['cli.js'], bundle: 'loopledger.js' },
] as const;

describe.each(ENTRIES)("$who entry: its one-file bundle (npm run build:bundle) when it is current, else the modules", ({ args, modules: modulePath, bundle: bundleName }) => {
  const built = mkdtempSync(join(tmpdir(), 'loopledger-entry-'));
  afterAll(() => rmSync(built, { recursive: true, force: true }));
  mkdirSync(join(built, 'bin'));
  mkdirSync(join(built, 'dist', 'hook'), { recursive: true });
  copyFileSync('bin/loopledger.js', join(built, 'bin', 'loopledger.js'));
  writeFileSync(join(built, 'package.json'), '{"type":"module"}');
  const entry = (name: string) => `export async function main() { process.stdout.write('${name}'); return 0; }\n`;
  const modules = join(built, 'dist', ...modulePath);
  const bundle = join(built, 'dist', bundleName);
  writeFileSync(modules, entry('modules'));
  const which = () => spawnSync(process.execPath, [join(built, 'bin', 'loopledger.js'), ...args], { input: '{}', encoding: 'utf8' }).stdout;

  it('no bundle (a build by tsc alone): the modules', () => {
    expect(which()).toBe('modules');
  });

  it('a bundle as new as the modules or newer: the bundle', () => {
    writeFileSync(bundle, entry('bundle'));
    const t = new Date();
    utimesSync(modules, t, t);
    utimesSync(bundle, t, t);
    expect(which()).toBe('bundle');
  });

  it('a bundle older than the modules (tsc ran again since): the modules, never stale code', () => {
    utimesSync(bundle, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(which()).toBe('modules');
  });
});
