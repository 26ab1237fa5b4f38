// bin/loopledger.js run as is, reporting at exit what the process cost: CPU time and peak RSS
// on fd 3 (the test's pipe), so a busy wait or an unbounded read shows as a number. The peak is
// this process's own (test/helpers/peak-rss.cjs), not the test worker's it was forked from.
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';

const { ownPeakRssKb } = createRequire(import.meta.url)('../helpers/peak-rss.cjs');

process.on('exit', () => {
  const u = process.resourceUsage();
  try {
    writeSync(3, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: ownPeakRssKb() }));
  } catch {
    // No fd 3: run by hand.
  }
});
await import('../../bin/loopledger.js');
