// The yardstick: a bare readline + JSON.parse pass over the file, nothing else.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const path = process.argv[2];
const start = process.hrtime.bigint();
let lines = 0;
const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
for await (const line of rl) {
  if (line.length === 0) continue;
  JSON.parse(line);
  lines++;
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
process.stdout.write(JSON.stringify({ ms, lines, rssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
