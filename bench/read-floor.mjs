// The least the ledger's reading thread can do: its own line reader (dist/read/lines.js: blocking
// small reads, reused buffers, each line decoded once) and JSON.parse of every line, nothing else,
// over the same files in the same order as bench/baseline.mjs. Beside ccusage 20, a native reader,
// it says how near a JavaScript reader can come (issue 59).
//   node bench/read-floor.mjs PATH
import { forEachLine } from '../dist/read/lines.js';
import { jsonlFiles } from './jsonl-files.mjs';

const start = process.hrtime.bigint();
let lines = 0;
for (const file of jsonlFiles(process.argv[2])) {
  await forEachLine(file, (line) => {
    JSON.parse(line.text);
    lines++;
  });
}
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const usage = process.resourceUsage();
process.stdout.write(JSON.stringify({ ms, lines, rssMb: usage.maxRSS / 1024, cpuMs: usage.userCPUTime / 1000, sysMs: usage.systemCPUTime / 1000 }) + '\n');
