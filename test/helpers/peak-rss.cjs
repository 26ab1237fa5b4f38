// A process's own peak resident memory in KB: VmHWM in /proc/self/status, the high-water mark of
// the memory it has had since it started its program. resourceUsage().maxRSS (getrusage) on Linux
// also holds what the process it was forked from had before exec: a guard of ~100 MB spawned from
// a test worker of ~220 MB read as 220 MB. Without /proc, maxRSS is what there is.
'use strict';
const { readFileSync } = require('node:fs');

function ownPeakRssKb() {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // No /proc.
  }
  return process.resourceUsage().maxRSS;
}

module.exports = { ownPeakRssKb };
