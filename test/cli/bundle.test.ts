// Soak tier (npm run test:soak): a release check, the bundles against tsc's modules over every fixture, one process each (25 CPU-s).
// The CLI as the launcher runs it: dist/loopledger.cjs, one file written by `npm run build:bundle`
// from tsc's modules and compiled with the code cache the build wrote beside it
// (dist/loopledger.cache, bin/code-cache.js), with its two worker entries beside it. It must give the modules' bytes, start
// its lanes and its reading thread from the bundled workers (a lane that fails to start is retried
// on the main thread, silently, so equal output alone would not show it), find this package's
// launcher for `hook install`, and still load the price data only when a run prices something.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundles } from '../helpers/bundles.js';
import { cliEnv, ensureBuilt, ROOT } from './helpers.js';

// Every bundle but the guard's (package.json's build:bundle names them): the CLI and the worker
// entries it starts.
const BUNDLES = bundles()
  .map((b) => b.file.slice('dist/'.length))
  .filter((f) => f !== 'hook.cjs');
const WORKERS = BUNDLES.filter((f) => f !== 'loopledger.cjs');

let pkg: string;
let marks: string;
let big: string;
/** A copy of the package with tsc's modules and none of the bundles: what the bundles must match. */
let mods: string;
/** tsc's modules beside the wrapped worker bundles: the library's choice of worker file. */
let lib: string;

/** A package folder at `dir`: its manifest, node_modules, and the files of dist/ that `keep` takes. */
function packageCopy(dir: string, keep: (distPath: string) => boolean): void {
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const dist = join(ROOT, 'dist');
  cpSync(dist, join(dir, 'dist'), { recursive: true, filter: (src) => src === dist || keep(relative(dist, src).split('\\').join('/')) });
}

/** Each worker bundle of `dir`/dist, wrapped: it notes that it was loaded, then runs the real one beside it. */
function wrapWorkers(dir: string): void {
  for (const w of WORKERS) {
    const real = w.replace(/\.js$/, '.real.js');
    copyFileSync(join(ROOT, 'dist', w), join(dir, 'dist', real));
    writeFileSync(
      join(dir, 'dist', w),
      `import { appendFileSync } from 'node:fs';\nappendFileSync(process.env.BUNDLE_MARKS, ${JSON.stringify(`${w}\n`)});\nawait import('./${real}');\n`,
    );
  }
}

beforeAll(() => {
  ensureBuilt();
  // A copy of the package with the bundles and none of tsc's modules: a bundle that still reached
  // for a module (a worker at dist/run/…, bin/ two folders up) fails here instead of working by luck.
  pkg = mkdtempSync(join(tmpdir(), 'loopledger-bundle-'));
  mkdirSync(join(pkg, 'bin'));
  for (const f of readdirSync(join(ROOT, 'bin'))) copyFileSync(join(ROOT, 'bin', f), join(pkg, 'bin', f));
  packageCopy(pkg, (f) => [...BUNDLES, 'loopledger.cache'].includes(f));
  marks = join(pkg, 'marks');
  wrapWorkers(pkg);
  const bundle = (f: string) => BUNDLES.includes(f) || f.endsWith('.cache');
  mods = join(pkg, 'modules');
  packageCopy(mods, (f) => !bundle(f));
  lib = join(pkg, 'library');
  packageCopy(lib, (f) => !bundle(f));
  wrapWorkers(lib);
  // One file past the reading thread's threshold (PIPELINE_MIN_BYTES, 8 MB): a fixture repeated.
  const lines = readFileSync(join(ROOT, 'fixtures', 'claude-code', 'looping-test-fix.jsonl'), 'utf8');
  big = join(pkg, 'big.jsonl');
  writeFileSync(big, lines.repeat(Math.ceil((9 * 1024 * 1024) / lines.length)));
});
afterAll(() => rmSync(pkg, { recursive: true, force: true }));

const viaBundle = (args: string[]) => {
  rmSync(marks, { force: true });
  return spawnSync(process.execPath, [join(pkg, 'bin', 'loopledger.js'), ...args], {
    cwd: ROOT,
    env: cliEnv({ BUNDLE_MARKS: marks }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
};
/**
 * `code` (an ES module) run by Node from a file in the package copy: not `-e`, since workers
 * inherit the process's flags and `--input-type` makes them fail to start (the run would then
 * fall back to one thread in silence).
 */
const runModule = (name: string, code: string) => {
  rmSync(marks, { force: true });
  const script = join(pkg, name);
  writeFileSync(script, code);
  return spawnSync(process.execPath, [script], { cwd: ROOT, env: cliEnv({ BUNDLE_MARKS: marks }), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
};
const importOf = (file: string) => `await import(${JSON.stringify(pathToFileURL(file).href)})`;
const viaModules = (args: string[]) =>
  runModule('modules-run.mjs', `const { main } = ${importOf(join(mods, 'dist', 'cli.js'))};\nprocess.exitCode = await main(${JSON.stringify(args)});\n`);
/** The library's JSON report of fixtures/ with `--jobs 2`, from tsc's modules in `dist`. */
const viaLibrary = (dist: string) =>
  runModule(
    'library-run.mjs',
    `const { audit, renderReport } = ${importOf(join(dist, 'index.js'))};\nprocess.stdout.write(await renderReport(await audit(['fixtures'], { jobs: 2, pricing: false }), 'json'));\n`,
  );
const loaded = () => (existsSync(marks) ? readFileSync(marks, 'utf8').split('\n').filter(Boolean) : []);

describe('dist/loopledger.cjs, the CLI the launcher runs', () => {
  it.each([
    ['2', 'one lane reading in a thread of its own', ['file-pool-worker.js', 'reader-thread-worker.js']],
    ['3', 'three lanes', ['file-pool-worker.js', 'file-pool-worker.js', 'file-pool-worker.js']],
  ])("--jobs %s over fixtures/ (%s): the modules' ledger byte for byte, each thread from its bundled worker", (jobs, _how, workers) => {
    const args = ['analyze', 'fixtures', '--jobs', jobs, '--format', 'json'];
    const bundled = viaBundle(args);
    expect(loaded()).toEqual(workers);
    const modules = viaModules(args);
    expect(bundled.status).toBe(modules.status);
    expect(bundled.stderr).toBe(modules.stderr);
    expect(bundled.stdout.length).toBeGreaterThan(10_000);
    expect(bundled.stdout).toBe(modules.stdout);
  });

  it("one file past 8 MB (--jobs 2): a lane reading on its bundled thread, the modules' ledger byte for byte", () => {
    const args = ['analyze', big, '--jobs', '2', '--format', 'json'];
    const bundled = viaBundle(args);
    // A large file alone runs in one lane (its heap capped), which reads in a thread of its own.
    expect(loaded()).toEqual(['file-pool-worker.js', 'reader-thread-worker.js']);
    const modules = viaModules(args);
    expect(bundled.status).toBe(modules.status);
    expect(bundled.stdout).toBe(modules.stdout);
  });

  it("the library (tsc's modules) starts its threads from the worker bundles built with it, and from its own modules beside older ones", () => {
    const fresh = viaLibrary(join(lib, 'dist'));
    expect(fresh.stderr).toBe('');
    expect(loaded()).toEqual(['file-pool-worker.js', 'reader-thread-worker.js']);
    const own = viaLibrary(join(mods, 'dist'));
    expect(loaded()).toEqual([]);
    expect(fresh.stdout.length).toBeGreaterThan(10_000);
    expect(fresh.stdout).toBe(own.stdout);
    // After `tsc` alone the bundles are older than the modules: passed over.
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const w of WORKERS) utimesSync(join(lib, 'dist', w), hourAgo, hourAgo);
    expect(viaLibrary(join(lib, 'dist')).stdout).toBe(own.stdout);
    expect(loaded()).toEqual([]);
  });

  it('hook install names the launcher of the package the bundle is in', () => {
    const r = viaBundle(['hook', 'install', 'claude-code']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(JSON.stringify(`${join(pkg, 'bin', 'loopledger.js')} hook claude-code`));
  });

  it('--version is the package.json version', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(viaBundle(['--version']).stdout).toBe(`${manifest.version}\n`);
  });

  it("requires only Node's own modules, the price data only when a run prices something, and SQLite only when a store is a database (requires deferred to a promise)", () => {
    const bundle = readFileSync(join(ROOT, 'dist', 'loopledger.cjs'), 'utf8');
    const required = [...bundle.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!);
    expect(required.length).toBeGreaterThan(0);
    expect(required.filter((s) => !isBuiltin(s)).sort()).toEqual(['@pydantic/genai-prices', 'sql.js']);
    expect(bundle).toMatch(/Promise\.resolve\(\)\.then\(\(\) => __toESM\(require\("@pydantic\/genai-prices"\)/);
    expect(bundle).toMatch(/Promise\.resolve\(\)\.then\(\(\) => __toESM\(require\("sql\.js"\)/);
    // No import() left: a script compiled from a code cache has no loader for one.
    expect(bundle).not.toMatch(/\bimport\(\s*['"]/);
  });
});
