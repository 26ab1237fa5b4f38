#!/usr/bin/env node
// The launcher stays tiny: everything lives in the compiled library so it can be imported too.
import { main } from '../dist/cli.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
