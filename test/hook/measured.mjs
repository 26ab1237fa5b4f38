// bin/loopledger.js run as is, reporting at exit what the process cost: CPU time and peak RSS
// on fd 3 (the test's pipe), so a busy wait or an unbounded read shows as a number.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const u = process.resourceUsage();
  try {
    writeSync(3, JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKb: u.maxRSS }));
  } catch {
    // No fd 3: run by hand.
  }
});
await import('../../bin/loopledger.js');
