#!/usr/bin/env node
// The launcher stays tiny: everything lives in the compiled library so it can be imported too.
// `hook` runs on every tool call of a live agent: it loads its own small entry module, never the
// CLI (commander, chalk, cli-table3), so a call costs about one Node start. Where Node has a
// compile cache (22.1+), the hook uses it: the same modules are loaded on every call.
import module from 'node:module';

const argv = process.argv.slice(2);
if (argv[0] === 'hook') module.enableCompileCache?.();
const { main } = argv[0] === 'hook' ? await import('../dist/hook/main.js') : await import('../dist/cli.js');

main(argv).then((code) => {
  process.exitCode = code;
});
