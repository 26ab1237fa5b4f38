// Rebuilds the public store samples (issue 58 item 2) from mirrors of the repositories that
// committed them, so the tests can read real stores in place while no one else's file enters git.
// Fetches nothing: give it the folder of mirrors (`owner+name/repo` git directories, as the
// project's fetch tool leaves them). Each manifest row's blob is written to
// <out>/<owner+name>/<commit>/<path> (the path kept: a task folder's layout is part of the sample)
// and checked against its sha256.
//
//   node bench/public-stores/rebuild.mjs [--mirrors /work/.mirror] [--out bench/public-stores/data]

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
};
const mirrors = resolve(option('--mirrors', '/work/.mirror'));
const out = resolve(option('--out', join(HERE, 'data')));

/** A mirror is a bare repository, or a folder holding one as `repo` or `.git`. */
function gitDir(mirror) {
  for (const candidate of [join(mirror, 'repo'), join(mirror, '.git'), mirror]) if (existsSync(join(candidate, 'objects'))) return candidate;
  return null;
}

const rows = readFileSync(join(HERE, 'manifest.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
let written = 0;
const problems = [];
for (const row of rows) {
  const target = join(out, row.repo.replace('/', '+'), row.commit, row.path);
  if (existsSync(target)) continue;
  const git = gitDir(join(mirrors, row.repo.replace('/', '+')));
  if (!git) {
    problems.push(`${row.repo}: no mirror under ${mirrors}`);
    continue;
  }
  let bytes;
  try {
    bytes = execFileSync('git', ['--git-dir', git, 'cat-file', 'blob', row.blob], { maxBuffer: 1 << 30 });
  } catch {
    problems.push(`${row.repo} ${row.blob} (${row.path}): not in the mirror`);
    continue;
  }
  const sha = createHash('sha256').update(bytes).digest('hex');
  if (sha !== row.sha256) throw new Error(`${row.repo} ${row.path}: sha256 ${sha}, the manifest says ${row.sha256}`);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bytes);
  written++;
}
console.log(`${written} files written under ${out}, ${rows.length} in the manifest`);
if (problems.length > 0) console.log(`missing:\n  ${problems.join('\n  ')}`);
process.exitCode = problems.length > 0 ? 1 : 0;
