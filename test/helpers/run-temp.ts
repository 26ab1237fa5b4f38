// Every file a test run writes to the temporary folder goes to one folder of its own, removed when
// the run ends: tests, the CLI and guard runs they start and the agents they drive all take their
// temporary folder from TMPDIR (os.tmpdir()). A test that forgot its scratch folder, or an agent's
// run left behind, filled /tmp over many runs (a live agent's home holds ~235 MB). What was left is
// named when the run ends, so the test that leaks can be found.

import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Each test's own folders are mkdtemp's 0700; the run's is /tmp's 1777, for the cases run as another user. */
const LIKE_TMP = 0o1777;

/** Give the owner back every folder below `dir` a test made unreadable, so it can be removed. */
function reopen(dir: string): void {
  try {
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (lstatSync(path).isDirectory()) reopen(path);
    }
  } catch {
    // Another user's folder: left for rmSync to report.
  }
}

export default function setup(): () => void {
  const outer = process.env['TMPDIR'];
  const dir = mkdtempSync(join(tmpdir(), 'loopledger-test-run-'));
  chmodSync(dir, LIKE_TMP);
  process.env['TMPDIR'] = dir;
  return () => {
    if (outer === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = outer;
    const left = readdirSync(dir);
    if (left.length > 0) {
      const names = left.slice(0, 8).join(', ') + (left.length > 8 ? `, and ${left.length - 8} more` : '');
      console.log(`\nthe tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the run's temporary folder, removed now: ${names}`);
    }
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      reopen(dir);
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch (err) {
        console.log(`the run's temporary folder ${dir} could not be removed whole: ${(err as Error).message}`);
      }
    }
  };
}
