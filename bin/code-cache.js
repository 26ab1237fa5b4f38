// The CLI's and the guard's bundles (dist/loopledger.cjs, dist/hook.cjs) loaded with V8's code
// cache for them, written by `npm run build`: compiling the CLI's 1.2 MB is about half of what a
// start costs beyond a bare Node start (docs/architecture.md, The build). Node 20 has no compile
// cache of its own (module.enableCompileCache is 22.1+), hence this.
//
//   node bin/code-cache.js            writes dist/<bundle>.cache for each bundle (the build's last step)
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

/** The cache beside a bundle: dist/loopledger.cjs → dist/loopledger.cache. */
export const cacheOf = (bundle) => bundle.replace(/\.cjs$/, '.cache');

/**
 * A CommonJS bundle compiled with its cache when the cache is current, run, its exports returned.
 * V8 checks a cache against the source's length and the flags, not its content, so a cache older
 * than its bundle (a rebuild that kept the length) is never offered; a rejected one costs nothing
 * but the compile it would have saved.
 */
export function loadBundle(bundle) {
  const cache = cacheOf(bundle);
  const mtime = (p) => statSync(p, { throwIfNoEntry: false })?.mtimeMs;
  const cachedData = readCache(cache, mtime(bundle) ?? Infinity);
  const script = compile(bundle, cachedData);
  return { exports: run(script, bundle), script };
}

/**
 * The cache's bytes when it is a regular file no older than its bundle; anything else (a directory,
 * a FIFO, a device, unreadable) is passed over: the cache only saves time, so its absence must
 * never fail or hang a start (issue 53, item 15). Opened without blocking, then checked on the
 * descriptor, so a FIFO swapped in after a stat cannot hang the read either.
 */
function readCache(cache, notBefore) {
  let fd;
  try {
    fd = openSync(cache, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.mtimeMs < notBefore) return undefined;
    const bytes = Buffer.allocUnsafe(stats.size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, null);
      if (n === 0) break;
      got += n;
    }
    return got === bytes.length ? bytes : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function compile(bundle, cachedData) {
  return new vm.Script(module.wrap(readFileSync(bundle, 'utf8')), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
}

function run(script, bundle) {
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, module.createRequire(bundle), mod, bundle, dirname(bundle));
  return mod.exports;
}

/**
 * Each bundle compiled afresh and warmed the way it is used, then its code (with every function
 * the warm-up compiled, so a run compiles little of its own) written beside it.
 */
async function writeCaches() {
  const dist = new URL('../dist/', import.meta.url);
  const warmUps = {
    // A small analysis in every format path the CLI takes at start (arguments, config, a format, the ledger, prices).
    'loopledger.cjs': (main) => main([fileURLToPath(new URL('../fixtures/openai', import.meta.url)), '--format', 'json', '--jobs', '1']),
    // The guard's modules are all reached from its top level; a warm-up would need a live session.
    'hook.cjs': null,
  };
  for (const [name, warmUp] of Object.entries(warmUps)) {
    const bundle = fileURLToPath(new URL(name, dist));
    const script = compile(bundle, undefined);
    const { main } = run(script, bundle);
    if (warmUp && statSync(fileURLToPath(new URL('../fixtures', import.meta.url)), { throwIfNoEntry: false })) {
      const write = process.stdout.write;
      process.stdout.write = () => true;
      try {
        await warmUp(main);
      } finally {
        process.stdout.write = write;
        process.exitCode = 0;
      }
    }
    writeFileSync(cacheOf(bundle), script.createCachedData());
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await writeCaches();
