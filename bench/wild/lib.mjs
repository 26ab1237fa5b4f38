// Shared by scan.mjs, rebuild.mjs and measure.mjs: where the mirrors are, which paths in a home-folder
// agent store are transcripts, and how to read one mirror's objects with git (no dependency beyond Node).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const DATA = join(HERE, 'data');
export const MANIFEST = join(HERE, 'manifest.jsonl');
export const DEFAULT_MIRRORS = '/work/.mirror';

/**
 * The agent whose store holds `path`, or null. Only paths that exist in such stores count: a Claude Code
 * project log (`projects/<dir>/<uuid>.jsonl`, subagents included), a Codex rollout, a Gemini CLI chat file.
 */
export function agentOf(path) {
  if (/(^|\/)projects\/[^/]+\/([0-9a-f-]{36}\/subagents\/)?(agent-)?[0-9a-f-]{8,}\.jsonl$/.test(path)) return 'claude-code';
  if (/(^|\/)rollout-[^/]+\.jsonl$/.test(path)) return 'codex';
  if (/(^|\/)chats\/session-[^/]+\.jsonl?$/.test(path)) return 'gemini';
  return null;
}

/** `owner/name` from a mirror folder `/work/.mirror/owner+name[/repo]`. */
export function repoOf(mirror) {
  const dir = basename(mirror) === 'repo' ? basename(dirname(mirror)) : basename(mirror);
  const plus = dir.indexOf('+');
  return plus < 0 ? dir : `${dir.slice(0, plus)}/${dir.slice(plus + 1)}`;
}

/** The git directory of a mirror folder (fetch puts it at `<mirror>/repo`). */
export function gitDir(mirror) {
  return existsSync(join(mirror, 'repo')) ? join(mirror, 'repo') : mirror;
}

/** The value after `--name` on the command line, or the fallback. */
export function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

/** Mirror folders named on the command line, or every one under the default root. */
export function mirrorsFrom(args) {
  const roots = args.length > 0 ? args : [DEFAULT_MIRRORS];
  const out = [];
  for (const root of roots) {
    if (!existsSync(root)) continue;
    if (existsSync(join(root, 'repo')) || existsSync(join(root, 'HEAD'))) out.push(root);
    else for (const e of readdirSync(root, { withFileTypes: true })) if (e.isDirectory() && e.name.includes('+')) out.push(join(root, e.name));
  }
  return out;
}

export function git(dir, args) {
  return execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
}

/** Reads many blobs in one `git cat-file --batch`; calls `onBlob(hash, buffer|null)` per hash, null when absent. */
export function catBlobs(dir, hashes, onBlob) {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--git-dir', dir, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let buf = Buffer.alloc(0);
    let index = 0;
    child.stdout.on('data', (chunk) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      for (;;) {
        const nl = buf.indexOf(10);
        if (nl < 0) return;
        const header = buf.subarray(0, nl).toString();
        if (header.endsWith(' missing')) {
          onBlob(hashes[index++], null);
          buf = buf.subarray(nl + 1);
          continue;
        }
        const size = Number(header.split(' ')[2]);
        if (buf.length < nl + 1 + size + 1) return;
        onBlob(hashes[index++], Buffer.from(buf.subarray(nl + 1, nl + 1 + size)));
        buf = buf.subarray(nl + 1 + size + 1);
      }
    });
    child.on('error', reject);
    child.on('close', () => resolve());
    child.stdin.on('error', () => {});
    child.stdin.end(hashes.map((h) => `${h}\n`).join(''));
  });
}

/** Where a manifest row's file lives once rebuilt: one folder per repository, the blob's hash as the name. */
export function dataPath(row, root = DATA) {
  const ext = row.path.endsWith('.json') ? '.json' : '.jsonl';
  return join(root, row.repo.replace('/', '+'), `${row.blob}${ext}`);
}

export function readManifest(file = MANIFEST) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim().length > 0).map((line) => JSON.parse(line));
}
