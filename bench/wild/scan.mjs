// The wild corpus's scanner (issue 54, item 1). Given mirror folders (git directories that `fetch` brought
// under /work/.mirror), it lists every transcript blob in their whole history (deduplicated by blob hash),
// keeps one version per session (the largest: a store committed several times holds the same session
// growing), extracts it to bench/wild/data/ (git-ignored), and computes cheap candidate signals so the
// sessions worth reading by hand come first. It merges into bench/wild/manifest.jsonl without touching
// a row's label, windows or part.
//
//   node bench/wild/scan.mjs [MIRROR_ROOT_OR_DIR ...]     (default: every mirror under /work/.mirror)
//
// Signals are read through the built library's readers (dist/), so rounds are numbered as loopledger
// numbers them. Nothing here judges: the labels are written by a person reading the sessions.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { agentOf, catBlobs, dataPath, git, gitDir, MANIFEST, mirrorsFrom, readManifest, repoOf } from './lib.mjs';
import { roundsOf, signalsOf } from './signals.mjs';

/** Every transcript blob reachable in a mirror's history, with a path it had and the commit that added it. */
function transcriptBlobs(dir) {
  const blobs = new Map();
  // rev-list names each object once, by the first path it meets; missing objects (over 4 MiB) are skipped.
  let listing = '';
  try {
    listing = git(dir, ['rev-list', '--all', '--objects', '--missing=allow-any']);
  } catch {
    return blobs;
  }
  for (const line of listing.split('\n')) {
    const space = line.indexOf(' ');
    if (space < 0) continue;
    const path = line.slice(space + 1);
    const agent = agentOf(path);
    if (agent) blobs.set(line.slice(0, space), { path, agent, commit: null });
  }
  if (blobs.size === 0) return blobs;
  // The commit that introduced each blob, from one pass over the history's raw diffs.
  let log = '';
  try {
    log = git(dir, ['log', '--all', '--raw', '--no-abbrev', '--no-renames', '--diff-filter=AM', '--format=C %H']);
  } catch (error) {
    log = String(error.stdout ?? '');
  }
  let commit = null;
  for (const line of log.split('\n')) {
    if (line.startsWith('C ')) commit = line.slice(2);
    else if (line.startsWith(':')) {
      const tab = line.indexOf('\t');
      const fields = line.slice(1, tab).split(' ');
      const entry = blobs.get(fields[3]); // left null when a commit on the way is absent from the snapshot
      if (entry && commit) {
        entry.commit = commit; // log walks newest first: the last one seen is the oldest
        entry.path = line.slice(tab + 1);
      }
    }
  }
  return blobs;
}

/**
 * tune or holdout, by the repository's name alone, so one person's sessions are all on one side and the
 * split never moves when sessions are added.
 */
function partOf(repo) {
  return createHash('sha256').update(repo.toLowerCase()).digest()[0] % 2 === 0 ? 'tune' : 'holdout';
}

/** One key per session: the same file name in the same store is the same session, whatever the version. */
function sessionKey(repo, path) {
  const name = basename(path).replace(/\.jsonl?$/, '');
  const parent = basename(dirname(path));
  return `${repo}:${parent === 'subagents' ? `${basename(dirname(dirname(path)))}/` : ''}${name}`;
}

async function main() {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const previous = new Map(readManifest().map((row) => [row.key, row]));
  const chosen = new Map();
  let blobCount = 0;
  for (const mirror of mirrorsFrom(args)) {
    const dir = gitDir(mirror);
    const repo = repoOf(mirror);
    const blobs = transcriptBlobs(dir);
    if (blobs.size === 0) continue;
    const hashes = [...blobs.keys()];
    blobCount += hashes.length;
    const sizes = new Map();
    await catSizes(dir, hashes, (h, size) => sizes.set(h, size)); // absent objects are left out
    for (const [hash, info] of blobs) {
      const size = sizes.get(hash);
      if (size === undefined) continue;
      const key = sessionKey(repo, info.path);
      const had = chosen.get(key);
      if (!had || size > had.size) chosen.set(key, { key, repo, commit: info.commit, path: info.path, blob: hash, agent: info.agent, size, dir });
    }
  }
  // Extract the chosen version of each session (deduplicated by blob hash across mirrors: forks share them).
  const byBlob = new Map();
  for (const row of chosen.values()) if (!byBlob.has(row.blob)) byBlob.set(row.blob, row);
  const perDir = new Map();
  for (const row of byBlob.values()) perDir.set(row.dir, [...(perDir.get(row.dir) ?? []), row]);
  for (const [dir, rows] of perDir) {
    const want = new Map(rows.map((r) => [r.blob, r]));
    await catBlobs(dir, [...want.keys()], (hash, buffer) => {
      if (!buffer) return;
      const row = want.get(hash);
      const file = dataPath(row);
      mkdirSync(dirname(file), { recursive: true });
      if (!existsSync(file)) writeFileSync(file, buffer);
    });
  }
  const out = [];
  for (const row of byBlob.values()) {
    const file = dataPath(row);
    if (!existsSync(file)) continue;
    const rounds = await roundsOf(file);
    const signals = signalsOf(rounds);
    const old = previous.get(row.key) ?? {};
    out.push({
      key: row.key,
      repo: row.repo,
      commit: row.commit,
      path: row.path,
      blob: row.blob,
      agent: row.agent,
      part: partOf(row.repo),
      label: old.label ?? 'unread',
      windows: old.windows ?? [],
      note: old.note,
      has_tool_calls: signals.tool_calls > 0,
      rounds: signals.rounds,
      tool_calls: signals.tool_calls,
      signals: signals.candidates,
    });
  }
  out.sort((a, b) => (a.repo === b.repo ? a.key.localeCompare(b.key) : a.repo.localeCompare(b.repo)));
  // Rows of mirrors not scanned this time stay as they were (a partial scan never drops labels).
  const seen = new Set(out.map((r) => r.key));
  for (const row of previous.values()) if (!seen.has(row.key)) out.push(row);
  out.sort((a, b) => (a.repo === b.repo ? a.key.localeCompare(b.key) : a.repo.localeCompare(b.repo)));
  writeFileSync(MANIFEST, out.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const withCalls = out.filter((r) => r.has_tool_calls);
  const byAgent = {};
  for (const r of withCalls) byAgent[r.agent] = (byAgent[r.agent] ?? 0) + 1;
  const candidates = withCalls.filter((r) => Object.keys(r.signals).length > 0).length;
  console.log(`${blobCount} transcript blobs, ${out.length} sessions (one version each), ${withCalls.length} with tool calls ${JSON.stringify(byAgent)}, ${candidates} candidates`);
  console.log(`wrote ${MANIFEST}`);
}

function catSizes(dir, hashes, onSize) {
  return new Promise((resolve) => {
    const child = spawn('git', ['--git-dir', dir, 'cat-file', '--batch-check'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let rest = '';
    child.stdout.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        const [hash, type, size] = line.split(' ');
        if (type === 'blob') onSize(hash, Number(size));
      }
    });
    child.on('close', () => resolve());
    child.stdin.end(hashes.map((h) => `${h}\n`).join(''));
  });
}

await main();
