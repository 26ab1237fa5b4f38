// `npm run bench`: the corpora (run.mjs), then the live guard (hook.mjs) and each agent's hook as
// installed (agents-latency.mjs). npm appends `npm run bench -- ARGS` to the script's last command,
// so the arguments come here and go to run.mjs, whose options the docs give; with `--only` (a subset
// of corpora asked for) the hook benches are left out, as they time no corpus.
//   node bench/all.mjs [run.mjs options]   (--print: the commands, not run)

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const print = args.includes('--print');
const forwarded = args.filter((a) => a !== '--print');
const steps = [['run.mjs', forwarded]];
if (!forwarded.includes('--only')) steps.push(['hook.mjs', []], ['agents-latency.mjs', []]);
for (const [script, rest] of steps) {
  if (print) {
    console.log(['node', `bench/${script}`, ...rest].join(' '));
    continue;
  }
  const r = spawnSync(process.execPath, [join(here, script), ...rest], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
