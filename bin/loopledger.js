#!/usr/bin/env node
// The launcher stays tiny: everything lives in the compiled library so it can be imported too.
// `hook` runs on every tool call of a live agent: it loads its own small entry, never the CLI
// (commander, chalk, cli-table3), so a call costs about one Node start. Where Node has a
// compile cache (22.1+), the hook uses it: the same modules are loaded on every call. Elsewhere a
// bundle is compiled from the V8 code cache the build wrote beside it (bin/code-cache.js).
import { statSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './code-cache.js';

const argv = process.argv.slice(2);
// `hook install|uninstall|doctor` are typed by a person: the CLI's, not the guard's.
const guard = argv[0] === 'hook' && !['install', 'uninstall', 'doctor'].includes(argv[1]);
const nodeCache = guard && module.enableCompileCache !== undefined;
if (nodeCache) module.enableCompileCache();
const entry = guard ? current('../dist/hook.cjs', '../dist/hook/main.js') : current('../dist/loopledger.cjs', '../dist/cli.js');

/**
 * A one-file bundle of the entry's modules (`npm run build:bundle`) when it is current: loading one
 * file instead of ~70 (the guard) or ~240 (the CLI) modules is most of what a start costs beyond a
 * bare Node start (docs/hook.md, Latency; docs/architecture.md, The build). A build by tsc alone has
 * no bundle, or an older one than the modules: those run as they are.
 */
function current(bundle, modules) {
  const mtime = (p) => statSync(new URL(p, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
  // Only a regular file is a bundle: a directory or FIFO in its place is passed over (issue 53, item 15).
  const bundled = statSync(new URL(bundle, import.meta.url), { throwIfNoEntry: false })?.isFile() ? mtime(bundle) : undefined;
  return bundled !== undefined && bundled >= (mtime(modules) ?? 0) ? bundle : modules;
}
let main;
try {
  if (!entry.endsWith('.cjs')) ({ main } = await import(entry));
  // Node's own compile cache where the guard has it; elsewhere the cache the build wrote (bin/code-cache.js).
  else if (nodeCache) ({ main } = module.createRequire(import.meta.url)(entry));
  else ({ main } = loadBundle(fileURLToPath(new URL(entry, import.meta.url))).exports);
} catch (e) {
  // A source checkout before its first build has no dist/: say so, not a stack trace.
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes(new URL(entry, import.meta.url).pathname)) throw e;
  process.stderr.write(`loopledger: ${new URL('../dist/', import.meta.url).pathname} is missing: run \`npm run build\` in this checkout first\n`);
  // The hook fails open (exit 0, as for any failure of its own): an agent must never be blocked by it.
  process.exit(guard ? 0 : 2);
}

main(argv).then((code) => {
  process.exitCode = code;
});
