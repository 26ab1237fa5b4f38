// Issue 56 item 2, checked as it asks: "on a generated home folder like the one above (seeded, in
// the repo), at 80 and 160 columns, and with a tmux scrollback of 2,000 lines: the overview must
// still be on screen". The home is bench/home.mjs's (22 sessions with their sub-agents, clutter
// around them) plus a 1,801-round loop (bench/long-loop.mjs), the worst case; a plain
// `loopledger HOME` runs in a real tmux pane whose history holds 2,000 lines.

import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateHome } from '../../bench/home.mjs';
import { generateLongLoop } from '../../bench/long-loop.mjs';
import { describeWith } from '../helpers/capabilities.js';
import { ensureBuilt, ROOT, scratch } from './helpers.js';

const HISTORY = 2_000;
/** "fits in a few hundred lines at 80 columns". */
const MOST_LINES_AT_80 = 300;
const DONE = '__loopledger_done__';

const tmp = scratch('loopledger-scrollback-');
let home = '';
let servers = 0;

/** One tmux server per run, its history limit set before the pane exists (it applies to new panes). */
class Pane {
  private readonly socket: string;
  constructor(name: string) {
    this.socket = join(tmp.dir, `tmux-${name}-${++servers}`);
  }
  private tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-S', this.socket, '-f', join(tmp.dir, 'tmux.conf'), ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }
  start(width: number, command: string): void {
    // `sleep` keeps the pane after the command ends, so its scrollback can be read.
    const script = `cd ${JSON.stringify(ROOT)} && env -u FORCE_COLOR NO_COLOR=1 COLUMNS=${width} ${command}; echo ${DONE}; sleep 120`;
    this.tmux('new-session', '-d', '-x', String(width), '-y', '40', '-s', 's', script);
  }
  /** Everything the pane still holds: its history and the visible screen. */
  scrollback(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', 's');
  }
  historyLimit(): number {
    return Number(this.tmux('display-message', '-p', '-t', 's', '#{history_limit}').trim());
  }
  async waitDone(timeoutMs: number): Promise<string> {
    const until = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < until) {
      last = this.scrollback();
      if (last.includes(DONE)) return last;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`loopledger did not finish in ${timeoutMs} ms; the pane shows:\n${last.slice(-2000)}`);
  }
  stop(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server']);
  }
}

beforeAll(async () => {
  ensureBuilt();
  writeFileSync(join(tmp.dir, 'tmux.conf'), `set -g history-limit ${HISTORY}\n`);
  ({ home } = await generateHome(join(tmp.dir, 'out'), { sessions: 22, seed: 56, scale: 1 }));
  await generateLongLoop(join(home, '.claude', 'projects', '-home-alex-src-webapp', '5d1f0c2a-56aa-4c1e-9b1d-000000001801.jsonl'), { rounds: 1_801, seed: 56 });
}, 180_000);
afterAll(() => tmp.cleanup());

describeWith('tmux', 'the first screen of a generated home in tmux (2,000 lines of scrollback)', () => {
  for (const width of [80, 160]) {
    it(`at ${width} columns the overview is still in the scrollback, above every session`, async () => {
      const pane = new Pane(`w${width}`);
      try {
        pane.start(width, `node bin/loopledger.js ${JSON.stringify(home)}`);
        expect(pane.historyLimit()).toBe(HISTORY);
        const screen = await pane.waitDone(150_000);
        const lines = screen.split('\n');
        const overview = lines.findIndex((l) => /^\d+ sessions · \d+ with findings, worst first/.test(l));
        expect(overview, screen.slice(0, 3000)).toBeGreaterThanOrEqual(0);
        expect(lines.findIndex((l) => l.startsWith('Loops that cost the most'))).toBeGreaterThan(overview);
        // The first session in full comes after the overview and its totals.
        const firstTable = lines.findIndex((l) => l.startsWith('┌'));
        expect(firstTable).toBeGreaterThan(overview);
        // The 1,801-round loop is one row, its count written as every count is.
        expect(screen).toMatch(/×1,799/);
        const output = lines.slice(overview, lines.findIndex((l) => l.includes(DONE)));
        if (width === 80) expect(output.length).toBeLessThanOrEqual(MOST_LINES_AT_80);
        expect(output.length).toBeLessThan(HISTORY);
      } finally {
        pane.stop();
      }
    }, 200_000);
  }
});
