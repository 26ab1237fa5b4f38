// A Claude Code store of many session files of realistic sizes, for `npm run bench` (issue 17):
// seeded, deterministic. Sizes follow a log-normal law (median 32 KB, the largest capped at
// 4.7 MB, as a real two-thousand-session store measured), its spread chosen so the store totals
// about `totalMb`; a third of the sessions are heavy in text. Laid out as Claude Code does,
// DIR/projects/<project>/<session>.jsonl, so ccusage reads it with CLAUDE_CONFIG_DIR=DIR.
//
//   node bench/store.mjs DIR [--files 2000] [--mb 305] [--seed 17]

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from './generate.mjs';

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MEDIAN = 26 * 1024; // the generator finishes its last round: files come out ~6 KB over
const MAX = 4.6 * 1024 * 1024;
const MIN = 3 * 1024;
const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1-20250805', 'claude-haiku-4-5-20251001'];

/** The file sizes: standard normal draws, then the spread that makes the clamped sizes total `total`. */
export function storeSizes(files, total, rand) {
  const z = Array.from({ length: files }, () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
  const sizes = (sigma) => z.map((x) => Math.min(MAX, Math.max(MIN, MEDIAN * Math.exp(sigma * x))));
  let lo = 0.1;
  let hi = 4;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    if (sizes(mid).reduce((a, b) => a + b, 0) < total) lo = mid;
    else hi = mid;
  }
  return sizes(lo).map(Math.round);
}

export async function generateStore(dir, { files = 2000, mb = 305, seed = 17 } = {}) {
  const rand = rng(seed);
  const sizes = storeSizes(files, mb * 1024 * 1024, rand);
  const hex = (n) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  let written = 0;
  for (let i = 0; i < files; i++) {
    const project = `-home-ana-src-project-${String(i % 24).padStart(2, '0')}`;
    const sessionId = `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
    const folder = join(dir, 'projects', project);
    mkdirSync(folder, { recursive: true });
    written += await generate(join(folder, `${sessionId}.jsonl`), sizes[i], seed * 100003 + i, {
      profile: rand() < 1 / 3 ? 'text' : 'default',
      sessionId,
      model: MODELS[Math.floor(rand() * MODELS.length)],
    });
  }
  return { files, bytes: written };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const { files, bytes } = await generateStore(args[0], { files: Number(arg('--files', 2000)), mb: Number(arg('--mb', 305)), seed: Number(arg('--seed', 17)) });
  console.log(`${args[0]}: ${files} files, ${(bytes / 1048576).toFixed(0)} MB`);
}
