// The yardstick: a bare readline + JSON.parse pass over the input, nothing else. A directory is
// walked (sorted, recursively, .jsonl files) and its files read one after another. `parseMs`:
// the time inside JSON.parse alone, the least any reader of every line pays (issue 59: the floor
// beside ccusage 20, a native reader).
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { jsonlFiles } from './jsonl-files.mjs';

const start = process.hrtime.bigint();
let lines = 0;
let parseNs = 0n;
for (const file of jsonlFiles(process.argv[2])) {
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.length === 0) continue;
    const t = process.hrtime.bigint();
    JSON.parse(line);
    parseNs += process.hrtime.bigint() - t;
    lines++;
  }
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const usage = process.resourceUsage();
process.stdout.write(
  JSON.stringify({ ms, parseMs: Number(parseNs) / 1e6, lines, rssMb: usage.maxRSS / 1024, cpuMs: usage.userCPUTime / 1000, sysMs: usage.systemCPUTime / 1000, faults: usage.minorPageFault }) +
    '\n',
);
