// What parsing Claude Code's duplicated structured `toolUseResult` costs, and whether skipping it
// unparsed would pay (issue 30): the Claude Code reader never reads it, but a line's other fields
// can only be trusted if the whole line is valid JSON, so a skip must validate what it skips.
// Over the lines of a store's first files, CPU time (min / median of the runs, alternated) of:
//   as written     JSON.parse of every line
//   without it     JSON.parse of the same lines with each top-level toolUseResult value replaced by
//                  a one-character string (flat strings, as an elision made before decoding would give)
//   strict skip    a validating scan of just those values (strings, escapes, control characters,
//                  numbers, literals, nesting), the least a correct skip costs in JavaScript
// A skip pays only if "strict skip" is well under "as written" minus "without it".
//   node bench/tool-use-result.mjs bench/corpus/real-claude [--files 150] [--runs 10]

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const files = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .sort()
        .flatMap((e) => files(join(path, e)))
    : path.endsWith('.jsonl')
      ? [path]
      : [];

const KEY = '"toolUseResult":';
const isSpace = (c) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isHex = (c) => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/** After the opening quote at i - 1: the index past the closing quote, or -1 if not a JSON string. */
function skipString(s, i) {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      const e = s.charCodeAt(i + 1);
      if (e === 0x75) {
        if (!(isHex(s.charCodeAt(i + 2)) && isHex(s.charCodeAt(i + 3)) && isHex(s.charCodeAt(i + 4)) && isHex(s.charCodeAt(i + 5)))) return -1;
        i += 6;
      } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        i += 2;
      } else return -1;
    } else if (c >= 0x20) i++;
    else return -1; // a raw control character, or the end of the text (NaN)
  }
}

function skipDigits(s, i) {
  const start = i;
  while (s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
  return i === start ? -1 : i;
}

function skipNumber(s, i) {
  if (s.charCodeAt(i) === 0x2d) i++;
  const c = s.charCodeAt(i);
  if (c === 0x30) i++;
  else if (c >= 0x31 && c <= 0x39) i = skipDigits(s, i);
  else return -1;
  if (s.charCodeAt(i) === 0x2e && (i = skipDigits(s, i + 1)) < 0) return -1;
  const e = s.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    if (s.charCodeAt(i) === 0x2b || s.charCodeAt(i) === 0x2d) i++;
    i = skipDigits(s, i);
  }
  return i;
}

/** A key, its colon and the spaces around: the index of its value, or -1. */
function skipKey(s, i) {
  while (isSpace(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) !== 0x22 || (i = skipString(s, i + 1)) < 0) return -1;
  while (isSpace(s.charCodeAt(i))) i++;
  return s.charCodeAt(i) === 0x3a ? i + 1 : -1;
}

/** One JSON value from i (spaces before it included): the index past it, or -1. Iterative, so any depth. */
function skipValue(s, i) {
  const open = []; // 1: inside an object, 2: inside an array
  for (;;) {
    while (isSpace(s.charCodeAt(i))) i++;
    const c = s.charCodeAt(i);
    let scalar = true;
    if (c === 0x22) i = skipString(s, i + 1);
    else if (c === 0x7b || c === 0x5b) {
      let j = i + 1;
      while (isSpace(s.charCodeAt(j))) j++;
      if (s.charCodeAt(j) === (c === 0x7b ? 0x7d : 0x5d)) i = j + 1;
      else {
        open.push(c === 0x7b ? 1 : 2);
        i = c === 0x7b ? skipKey(s, i + 1) : i + 1;
        scalar = false;
      }
    } else if (c === 0x74) i = s.startsWith('true', i) ? i + 4 : -1;
    else if (c === 0x66) i = s.startsWith('false', i) ? i + 5 : -1;
    else if (c === 0x6e) i = s.startsWith('null', i) ? i + 4 : -1;
    else i = skipNumber(s, i);
    if (i < 0) return -1;
    if (!scalar) continue;
    // After a value: close what it ends, or go on to the next element.
    for (;;) {
      if (open.length === 0) return i;
      while (isSpace(s.charCodeAt(i))) i++;
      const top = open.at(-1);
      const d = s.charCodeAt(i);
      if (d === 0x2c) {
        i = top === 1 ? skipKey(s, i + 1) : i + 1;
        if (i < 0) return -1;
        break;
      }
      if (d !== (top === 1 ? 0x7d : 0x5d)) return -1;
      open.pop();
      i++;
    }
  }
}

const lines = [];
for (const file of files(args[0] ?? 'bench/corpus/real-claude').slice(0, arg('--files', 150))) {
  const bytes = readFileSync(file);
  for (let at = 0; ; ) {
    const end = bytes.indexOf(0x0a, at);
    if (end < 0) break;
    if (end > at) lines.push(bytes.toString('utf8', at, end));
    at = end + 1;
  }
}
// The values as a top-level key holds them (the first occurrence is that key in these lines: checked).
const values = [];
const without = lines.map((line) => {
  const k = line.indexOf(KEY);
  if (k < 0) return line;
  const end = skipValue(line, k + KEY.length);
  const replaced = line.slice(0, k + KEY.length) + '"-"' + line.slice(end);
  const a = JSON.parse(line);
  const b = JSON.parse(replaced);
  a.toolUseResult = '-';
  if (end < 0 || JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`the scan disagrees with JSON.parse on: ${line.slice(0, 200)}`);
  values.push([line, k + KEY.length]);
  return Buffer.from(replaced).toString('utf8');
});
const bytesOf = (xs) => xs.reduce((n, s) => n + Buffer.byteLength(s), 0);

const cpu = (fn) => {
  const start = process.cpuUsage();
  fn();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};
const times = { 'as written': [], 'without it': [], 'strict skip': [] };
for (let r = 0; r < arg('--runs', 10); r++) {
  times['as written'].push(cpu(() => lines.forEach((l) => JSON.parse(l))));
  times['without it'].push(cpu(() => without.forEach((l) => JSON.parse(l))));
  times['strict skip'].push(cpu(() => values.forEach(([l, v]) => skipValue(l, v))));
}
const mb = (n) => (n / 1048576).toFixed(1);
console.log(`${lines.length} lines, ${mb(bytesOf(lines))} MB; toolUseResult in ${values.length} of them, ${mb(bytesOf(lines) - bytesOf(without))} MB`);
for (const [name, xs] of Object.entries(times)) {
  xs.sort((a, b) => a - b);
  console.log(`${name.padEnd(12)} CPU ms min ${xs[0].toFixed(0).padStart(5)}   median ${xs[Math.floor((xs.length - 1) / 2)].toFixed(0).padStart(5)}`);
}
