// The whole ledger over the same file, through the library as the CLI runs it, its report written
// as `--format json` (what the issue and ccusage's `--json` are compared on), the text discarded.
//   node bench/ledger.mjs FILE [--jobs N]   (default: the CLI's default lanes; --jobs 1 keeps
//   everything on one thread)
import { audit, renderReport } from '../dist/index.js';

const path = process.argv[2];
const j = process.argv.indexOf('--jobs');
const jobs = j >= 0 ? Number(process.argv[j + 1]) : undefined;
const start = process.hrtime.bigint();
const report = await audit([path], jobs === undefined ? {} : { jobs });
const json = await renderReport(report, 'json');
const ms = Number(process.hrtime.bigint() - start) / 1e6;
const usage = process.resourceUsage();
process.stdout.write(
  JSON.stringify({
    ms,
    sessions: report.summary.sessions,
    rounds: report.summary.rounds,
    entries: report.summary.entries,
    jsonBytes: json.length,
    rssMb: usage.maxRSS / 1024,
    cpuMs: usage.userCPUTime / 1000,
    sysMs: usage.systemCPUTime / 1000,
    faults: usage.minorPageFault,
  }) + '\n',
);
