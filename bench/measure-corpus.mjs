// A generated store's shapes beside the real ones it is made to (issue 59, item 1): the figures of
// bench/wild-shapes.mjs for DIR, per agent, next to bench/wild-shapes.json (the wild corpus's).
//   node bench/measure-corpus.mjs DIR

import { readFileSync } from 'node:fs';
import { shapesOf } from './wild-shapes.mjs';

const REAL = JSON.parse(readFileSync(new URL('./wild-shapes.json', import.meta.url), 'utf8'));

/** Leaves of a shapes object as [name, value] pairs, nested names joined ("KB per MB text"). */
const flat = (o, prefix = '') =>
  Object.entries(o).flatMap(([k, v]) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? flat(v, `${prefix}${k} `) : [[`${prefix}${k}`, v]]));
const show = (v) => (v === undefined ? '-' : Array.isArray(v) ? v.join(' / ') : String(v));

/** Lines "figure  real  generated" for each agent found in DIR. */
export function shapeLines(dir) {
  const lines = [];
  for (const [agent, generated] of Object.entries(shapesOf(dir))) {
    const real = Object.fromEntries(flat(REAL[agent] ?? {}));
    const mine = flat(generated);
    lines.push(`${agent} shapes${' '.repeat(Math.max(1, 38 - agent.length))}${'real (wild)'.padEnd(28)} generated`);
    for (const [name, value] of mine) lines.push(`  ${name.padEnd(44)} ${show(real[name]).padEnd(28)} ${show(value)}`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(shapeLines(process.argv[2]).join('\n'));
