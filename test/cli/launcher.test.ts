// The launcher in a checkout that was never built (no dist/): a clear line, not a stack trace; the
// hook still fails open, as it does for any failure of its own (docs/hook.md).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** The launcher's files (bin/: the launcher and the code cache it loads bundles with) into `dir`/bin. */
function copyLauncher(dir: string): void {
  mkdirSync(join(dir, 'bin'));
  for (const f of ['loopledger.js', 'code-cache.js']) copyFileSync(join('bin', f), join(dir, 'bin', f));
}

const root = mkdtempSync(join(tmpdir(), 'loopledger-unbuilt-'));
copyLauncher(root);
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
  { who: "the guard's", args: ['hook', 'claude-code'], modules: ['hook', 'main.js'], bundle: 'hook.cjs' },
  { who: "the CLI's", args: ['--version'], modules: ['cli.js'], bundle: 'loopledger.cjs' },
] as const;

describe.each(ENTRIES)("$who entry: its one-file bundle (npm run build:bundle) when it is current, else the modules", ({ args, modules: modulePath, bundle: bundleName }) => {
  const built = mkdtempSync(join(tmpdir(), 'loopledger-entry-'));
  afterAll(() => rmSync(built, { recursive: true, force: true }));
  copyLauncher(built);
  mkdirSync(join(built, 'dist', 'hook'), { recursive: true });
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
    writeFileSync(bundle, `exports.main = async function main() { process.stdout.write('bundle'); return 0; };\n`);
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

// bin/code-cache.js: the build writes V8's code for each bundle beside it (dist/<name>.cache); the
// launcher compiles the bundle from it. V8 checks a cache against the source's length and the
// flags, not the content: a cache older than its bundle must never be offered.
describe('the code cache the build writes beside each bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopledger-code-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  copyLauncher(dir);
  mkdirSync(join(dir, 'dist'));
  copyFileSync('package.json', join(dir, 'package.json'));
  for (const f of ['loopledger.cjs', 'loopledger.cache']) copyFileSync(join('dist', f), join(dir, 'dist', f));
  const bundle = join(dir, 'dist', 'loopledger.cjs');
  const cache = join(dir, 'dist', 'loopledger.cache');
  // The bundle compiled as the launcher compiles it: was a cache offered, and did V8 take it?
  const compiled = () => {
    const script = `const { loadBundle } = await import(${JSON.stringify(join(dir, 'bin', 'code-cache.js'))}); const { script } = loadBundle(${JSON.stringify(bundle)}); process.stdout.write(String(script.cachedDataRejected));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  const version = () => spawnSync(process.execPath, [join(dir, 'bin', 'loopledger.js'), '--version'], { encoding: 'utf8' });
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

  it("the build's cache is taken by the Node that built it", () => {
    expect(compiled()).toBe('false');
    expect(version().stdout).toBe(`${manifest.version}\n`);
  });

  it('a cache older than its bundle (rebuilt since) is not offered', () => {
    const t = Date.now() / 1000;
    utimesSync(cache, t - 60, t - 60);
    utimesSync(bundle, t, t);
    expect(compiled()).toBe('undefined');
    expect(version().stdout).toBe(`${manifest.version}\n`);
  });

  it("a cache that is not this bundle's is rejected by V8, and the bundle still runs", () => {
    writeFileSync(cache, Buffer.alloc(4096, 7));
    expect(compiled()).toBe('true');
    const r = version();
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${manifest.version}\n`);
  });
});
