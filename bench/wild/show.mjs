// Prints a rebuilt session of the wild corpus round by round (calls, answers, reasoning, cut short), to read
// it when labelling windows. Prints to the terminal only: nothing of it is written anywhere.
//
//   node bench/wild/show.mjs KEY_OR_BLOB [FROM_ROUND [TO_ROUND]] [--width N] [--data DIR]

import { existsSync } from 'node:fs';
import { DATA, dataPath, readManifest } from './lib.mjs';
import { failed, roundsOf } from './signals.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const width = Number(option('--width', '160'));
const data = option('--data', existsSync(DATA) ? DATA : '/work/wild-data');
const [id, from = '1', to = '100000'] = args;
const row = readManifest().find((r) => r.key === id || r.blob === id || r.key.endsWith(id));
if (!row) {
  console.error(`show: no manifest row ${id}`);
  process.exit(2);
}
const cut = (s, n = width) => {
  const flat = String(s).replace(/\s+/g, ' ');
  return flat.length > n ? `${flat.slice(0, n)}…(${flat.length})` : flat;
};
console.log(`${row.key} ${row.agent} ${row.label} ${JSON.stringify(row.windows)}`);
for (const round of await roundsOf(dataPath(row, data))) {
  if (round.index < Number(from) || round.index > Number(to)) continue;
  console.log(`-- r${round.index} t${round.turn} L${round.line}`);
  for (const t of round.thinking) if (t.text) console.log(`   think: ${cut(t.text)}`);
  if (round.text) console.log(`   text: ${cut(round.text)}`);
  round.calls.forEach((call, i) => {
    const answer = round.answers?.[i];
    console.log(`   call ${call.name} ${cut(JSON.stringify(call.arguments), width)}`);
    console.log(`     ${answer ? (failed(answer) ? 'FAIL' : 'ok') : '?'} ${answer ? cut(answer.content, width) : ''}`);
  });
}
