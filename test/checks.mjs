#!/usr/bin/env node
// `npm test`'s static checks, `npm run typecheck` and `npm run lint`, run at the same time (two
// cores: about 5 s of `npm test`'s five minutes, issue 57 item 6). Each one's output is printed
// whole once it ends, so the two never interleave; the exit code is the first failure's.
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (script) =>
  new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => out.push(c));
    child.on('error', (error) => resolve({ script, code: 1, text: `${script}: ${error.message}\n` }));
    child.on('close', (code) => resolve({ script, code: code ?? 1, text: Buffer.concat(out).toString('utf8') }));
  });

let failed = 0;
for (const pending of [run('typecheck'), run('lint')]) {
  const { script, code, text } = await pending;
  process.stdout.write(`> npm run ${script}\n${text}`);
  if (code !== 0 && failed === 0) failed = code;
}
process.exit(failed);
