// Shard ledgers of a given total size for measuring `loopledger merge` (issue 27.17): the fixtures'
// JSON ledger as a shard writes it (with each session's timeline), its inputs and sessions copied under new paths until the shards hold `--mb`
// megabytes, each shard a consistent ledger (summary recomputed, as a run writes it).
//   node bench/merge-shards.mjs OUT_DIR [--mb 256] [--shards 4]
//   /usr/bin/time -v node bin/loopledger.js merge OUT_DIR/*.json --format json -o /dev/null

import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { mb: { type: 'string', default: '256' }, shards: { type: 'string', default: '4' } } });
const out = positionals[0];
if (!out) throw new Error('usage: node bench/merge-shards.mjs OUT_DIR [--mb 256] [--shards 4]');
const count = Number(values.shards);
const perShard = (Number(values.mb) * 1024 * 1024) / count;
const base = JSON.parse(execFileSync(process.execPath, ['bin/loopledger.js', 'fixtures', '--shard', '1/1', '--format', 'json'], { maxBuffer: 1 << 30 }).toString('utf8'));
const BASE_BYTES = JSON.stringify(base, null, 2).length;
const { assembleReport } = await import('../dist/ledger/summary.js');
mkdirSync(out, { recursive: true });

let copy = 0;
for (let k = 1; k <= count; k++) {
  // Written piece by piece: the generator should not be what runs out of memory.
  const inputs = [];
  const sessions = [];
  let bytes = 0;
  while (bytes < perShard) {
    const prefix = `copy-${String(copy++).padStart(6, '0')}/`;
    for (const i of base.inputs) inputs.push({ ...i, path: prefix + i.path });
    for (const s of base.sessions) {
      const moved = { ...s, id: `${prefix}${s.id}`, path: prefix + s.path, parent: s.parent === null ? null : prefix + s.parent };
      sessions.push(moved);
    }
    bytes += BASE_BYTES;
  }
  const report = assembleReport({ version: base.tool.version, config: base.config, inputs, sessions, shard: { index: k, count }, ...(base.pricing ? { pricing: base.pricing } : {}) });
  const file = createWriteStream(join(out, `shard-${k}.json`));
  const { sessions: all, ...head } = report;
  const open = JSON.stringify({ ...head, sessions: [] }, null, 2);
  const at = open.indexOf('"sessions": []');
  file.write(open.slice(0, at) + '"sessions": [\n');
  for (const [i, s] of all.entries()) {
    if (!file.write((i === 0 ? '    ' : ',\n    ') + JSON.stringify(s, null, 2).replace(/\n/g, '\n    '))) await once(file, 'drain');
  }
  file.write('\n  ]' + open.slice(at + '"sessions": []'.length));
  file.end();
  await once(file, 'finish');
}
console.log(`${count} shards, ${copy} copies of the fixtures (${copy * base.sessions.length} sessions) in ${out}`);
