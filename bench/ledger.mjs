// The whole ledger over the same file, through the library as the CLI runs it (one file, one job).
import { audit } from '../dist/index.js';

const path = process.argv[2];
const start = process.hrtime.bigint();
const report = await audit([path], { jobs: 1 });
const ms = Number(process.hrtime.bigint() - start) / 1e6;
process.stdout.write(
  JSON.stringify({
    ms,
    sessions: report.summary.sessions,
    rounds: report.summary.rounds,
    entries: report.summary.entries,
    rssMb: process.resourceUsage().maxRSS / 1024,
  }) + '\n',
);
