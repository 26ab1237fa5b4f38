// Rebuilds the wild corpus's files from mirrors, by blob hash (issue 54, item 1). Fetches nothing: give it
// the folder that holds the mirrors (`owner+name/repo` git directories, as `fetch` leaves them) and it
// writes each manifest row's blob to <out>/<owner+name>/<blob>.json[l], checks the bytes against the hash,
// and says which mirrors (and which blobs in a mirror) are missing.
//
//   node bench/wild/rebuild.mjs [--mirrors /work/.mirror] [--out bench/wild/data]

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { catBlobs, DATA, dataPath, DEFAULT_MIRRORS, gitDir, option, readManifest } from './lib.mjs';

const mirrors = resolve(option('--mirrors', DEFAULT_MIRRORS));
const out = resolve(option('--out', DATA));
const gitBlobHash = (buffer) => createHash('sha1').update(`blob ${buffer.length}\0`).update(buffer).digest('hex');

const byRepo = new Map();
for (const row of readManifest()) byRepo.set(row.repo, [...(byRepo.get(row.repo) ?? []), row]);

let written = 0;
let present = 0;
const missingMirrors = [];
const missingBlobs = [];
for (const [repo, rows] of byRepo) {
  const mirror = join(mirrors, repo.replace('/', '+'));
  if (!existsSync(mirror)) {
    missingMirrors.push(`${repo} (${rows.length} files)`);
    continue;
  }
  const want = new Map(rows.map((r) => [r.blob, r]));
  const seen = new Set();
  await catBlobs(gitDir(mirror), [...want.keys()], (hash, buffer) => {
    if (!buffer) return;
    if (gitBlobHash(buffer) !== hash) throw new Error(`rebuild: ${repo} ${hash}: the bytes do not match the hash`);
    seen.add(hash);
    const file = dataPath(want.get(hash), out);
    if (existsSync(file)) {
      present++;
      return;
    }
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, buffer);
    written++;
  });
  for (const hash of want.keys()) if (!seen.has(hash)) missingBlobs.push(`${repo} ${hash} ${want.get(hash).path}`);
}

console.log(`${written} files written, ${present} already there, under ${out}`);
if (missingMirrors.length > 0) console.log(`missing mirrors (fetch github:owner/name into ${mirrors}):\n  ${missingMirrors.join('\n  ')}`);
if (missingBlobs.length > 0) console.log(`blobs missing from their mirror:\n  ${missingBlobs.join('\n  ')}`);
process.exitCode = missingMirrors.length + missingBlobs.length > 0 ? 1 : 0;
