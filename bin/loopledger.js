#!/usr/bin/env node
// The launcher stays tiny: everything lives in the compiled library so it can be imported too.
// `hook` runs on every tool call of a live agent: it loads its own small entry module, never the
// CLI (commander, chalk, cli-table3), so a call costs about one Node start.
const argv = process.argv.slice(2);
const { main } = argv[0] === 'hook' ? await import('../dist/hook/main.js') : await import('../dist/cli.js');

main(argv).then((code) => {
  process.exitCode = code;
});
