// What the tarball holds, as `npm pack` reports it: what a user installing loopledger gets. The
// build is in it and nothing that points at what is not (no source maps to an unshipped src/, no
// leftover module of an older build); the docs the README links to are in it, and so is the
// licence package.json names; tests, fixtures, sources and benchmarks are not.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../cli/helpers.js';
import { bundles } from '../helpers/bundles.js';

interface PackReport {
  files: { path: string; size: number }[];
  size: number;
  unpackedSize: number;
}

/**
 * The one-file bundles `npm run build:bundle` writes beside tsc's modules: the guard, the CLI and the
 * worker entries the CLI starts (each at dist/'s top, where the CLI bundle looks for them).
 */
const BUNDLES: readonly string[] = bundles().map((b) => b.file);

let packed: string[];
let report: PackReport;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

beforeAll(() => {
  ensureBuilt();
  // --ignore-scripts: prepack would rebuild dist/ under the other tests' feet; npm test has just built it.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack failed:\n${r.stderr}`);
  report = (JSON.parse(r.stdout) as PackReport[])[0]!;
  packed = report.files.map((f) => f.path).sort();
}, 120_000);

describe('the published package', () => {
  it('holds the launcher, the build, the docs, the README, the licence and package.json', () => {
    for (const f of ['package.json', 'README.md', 'LICENSE', 'bin/loopledger.js', 'bin/code-cache.js', 'dist/loopledger.cache', 'dist/hook.cache', 'dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'dist/hook/main.js', ...BUNDLES]) {
      expect(packed, f).toContain(f);
    }
    // The bundles the launcher runs are among those the build writes (and so among those packed).
    const launched = [...readFileSync(join(ROOT, 'bin', 'loopledger.js'), 'utf8').matchAll(/current\('\.\.\/(dist\/[\w-]+\.c?js)'/g)].map((m) => m[1]);
    expect(launched.sort()).toEqual(['dist/hook.cjs', 'dist/loopledger.cjs']);
    expect(BUNDLES).toEqual(expect.arrayContaining(launched));
    const docs = readdirSync(join(ROOT, 'docs')).map((d) => `docs/${d}`);
    expect(docs.length).toBeGreaterThan(0);
    expect(packed).toEqual(expect.arrayContaining(docs));
  });

  it('holds no tests, fixtures, sources, benchmarks or CI scripts', () => {
    const stray = packed.filter((p) => /^(test|fixtures|src|bench|\.ci|\.tmp|node_modules)\//.test(p) || /(^|\/)tsconfig[^/]*\.json$/.test(p));
    expect(stray).toEqual([]);
  });

  it('ships no source maps, and no module points at one', () => {
    expect(packed.filter((p) => p.endsWith('.map'))).toEqual([]);
    const pointing = packed.filter((p) => p.endsWith('.js') && readFileSync(join(ROOT, p), 'utf8').includes('sourceMappingURL'));
    expect(pointing).toEqual([]);
  });

  it('ships exactly one compiled module per source module, plus the bundles: nothing left over from an older build', () => {
    const sources = walk(join(ROOT, 'src'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => relative(join(ROOT, 'src'), f).split('\\').join('/').replace(/\.ts$/, ''))
      .sort();
    const modules = packed.filter((p) => p.startsWith('dist/') && p.endsWith('.js') && !BUNDLES.includes(p)).map((p) => p.slice('dist/'.length, -'.js'.length))
      .sort();
    const declarations = packed.filter((p) => p.startsWith('dist/') && p.endsWith('.d.ts')).map((p) => p.slice('dist/'.length, -'.d.ts'.length))
      .sort();
    expect(modules).toEqual(sources);
    expect(declarations).toEqual(sources);
  });

  it("every file the README and the docs link to by relative path is in the package", () => {
    const linking = ['README.md', ...packed.filter((p) => p.startsWith('docs/') && p.endsWith('.md'))];
    const missing: string[] = [];
    let links = 0;
    for (const doc of linking) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        links += 1;
        const path = posix.normalize(posix.join(posix.dirname(doc), target));
        if (!packed.includes(path) && !packed.some((p) => p.startsWith(`${path.replace(/\/$/, '')}/`))) missing.push(`${doc} → ${target}`);
      }
    }
    expect(links, 'the README links to docs/').toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('builds when packed, never on install; the licence is the one package.json names', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string; scripts: Record<string, string> };
    // npm 11 runs `prepare` on every install from a folder or git and warns about it; `prepack`
    // runs for `npm pack` and `npm publish` alone.
    expect(pkg.scripts['prepare']).toBeUndefined();
    expect(pkg.scripts['prepack']).toMatch(/\bnpm run build\b/);
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} loopledger contributors\n/);
  });
});
