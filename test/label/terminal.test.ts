// `loopledger label` in a real terminal (issue 33.1: "Tested in a real terminal (tmux: send keys,
// capture the pane) at 80 and 160 columns"), and without one: "Non-interactive use … prints what it
// would ask and exits 2 with a usage line", `--batch FILE` applies answers, and a resumed run skips
// what the file already labels. The file written is then read by `sweep --labels`.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';

const FILES = [
  'fixtures/calibration/canonical/loop-migrate-retry.jsonl',
  'fixtures/calibration/openai/loop-health-check.json',
  'fixtures/calibration/canonical/clean-poll-build.jsonl',
];
const tmp = scratch('loopledger-label-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const TMUX = spawnSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).stdout.trim();
const KEYS = '[l] loop   [c] clean   [s] skip   [b/←] back   [q] quit';

let servers = 0;

class Pane {
  private socket = '';
  constructor(private readonly name: string) {}
  tmux(...args: string[]): string {
    const r = spawnSync(TMUX, ['-S', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }
  start(width: number, command: string): void {
    // A server of its own each time: a new session on a socket whose server is still shutting
    // down fails with "server exited unexpectedly".
    this.socket = join(tmp.dir, `tmux-${this.name}-${++servers}`);
    // `sleep` keeps the pane open after the labeller exits, so its last words can be captured.
    const script = `cd ${JSON.stringify(ROOT)} && env -u FORCE_COLOR NO_COLOR=1 ${command}; sleep 60`;
    this.tmux('new-session', '-d', '-x', String(width), '-y', '40', '-s', 'l', script);
  }
  capture(joined = false): string {
    return this.tmux('capture-pane', '-p', ...(joined ? ['-J'] : []), '-t', 'l');
  }
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'l', ...keys);
  }
  async waitFor(text: string, timeoutMs = 20_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < until) {
      last = this.capture();
      if (last.includes(text)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`waited for ${JSON.stringify(text)}; the pane shows:\n${last}`);
  }
  stop(): void {
    spawnSync(TMUX, ['-S', this.socket, 'kill-server']);
  }
}

const label = (labels: string) => `${process.execPath} bin/loopledger.js label ${FILES.join(' ')} --calm 1 --labels ${labels}`;

describe.each([80, 160])('in a %i-column terminal', (width) => {
  itWith('tmux', 'asks worst first, writes after every answer, goes back, quits, and resumes', async () => {
    const labels = join(tmp.dir, `labels-${width}.json`);
    const pane = new Pane(String(width));
    try {
      pane.start(width, label(labels));
      // In the overview's order (issue 56 item 5): both stop; Enforce would save dollars in the
      // health check, in the unpriced migration only rounds.
      let screen = await pane.waitFor('loopledger label · 1 of 3');
      expect(screen).toContain('session loop-health-check');
      expect(screen).toContain(KEYS);
      // Nothing wider than the terminal: joining wrapped lines changes nothing.
      expect(pane.capture(true)).toBe(pane.capture());
      for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(width);

      pane.keys('l');
      screen = await pane.waitFor('2 of 3');
      expect(screen).toContain('session loop-migrate-retry');
      expect(screen).toContain('t2 r4-5 (2×)  repeated_batch  run_migrations: same batch and answers 3');
      expect(screen).toContain('trace (rounds around the first finding');
      expect(screen).toContain('call run_migrations');
      for (const line of screen.split('\n')) expect([...line].length).toBeLessThanOrEqual(width);
      expect(JSON.parse(readFileSync(labels, 'utf8'))['loop-health-check']).toEqual({ label: 'loop', turn: 1, round: 2 });

      pane.keys('c');
      screen = await pane.waitFor('3 of 3');
      expect(screen).toContain('findings: none');
      expect(JSON.parse(readFileSync(labels, 'utf8'))['loop-migrate-retry']).toBe('clean');

      pane.keys('Left');
      screen = await pane.waitFor('2 of 3');
      expect(screen).toContain('your label: clean');
      pane.keys('l');
      await pane.waitFor('3 of 3');
      expect(JSON.parse(readFileSync(labels, 'utf8'))['loop-migrate-retry']).toEqual({ label: 'loop', turn: 2, round: 4 });

      pane.keys('q');
      screen = await pane.waitFor('labelled 2 sessions');
      expect(screen.replace(/\n/g, '')).toContain('(2 loop, 0 clean)');
      expect(screen.replace(/\n/g, '')).toContain('1 left: run the same command to go on');
      pane.stop();

      // Resumed: only the session the file does not label yet.
      pane.start(width, label(labels));
      screen = await pane.waitFor('1 of 1');
      expect(screen).toContain('2 already in the file');
      expect(screen).toContain('session clean-poll-build');
      pane.keys('c');
      screen = await pane.waitFor('nothing left to ask');
    } finally {
      pane.stop();
    }
    const sweep = await runCli(['sweep', ...FILES, '--param', 'tool_batch.max_strikes=2:3:1', '--labels', labels]);
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(sweep.stdout).toContain('labels: 2 loop, 1 clean; 0 unlabeled sessions');
  });
});

describe('without a terminal', () => {
  it('prints what it would ask and exits 2 with a usage line', async () => {
    const labels = join(tmp.dir, 'never.json');
    const r = await runCli(['label', ...FILES, '--calm', '1', '--labels', labels]);
    expect(r.code).toBe(2);
    expect(r.stdout.split('\n').slice(0, 4)).toEqual([
      '3 sessions to label: 2 with findings (worst first), then 1 of 1 calm (seed 1)',
      '  1. loop-health-check  fixtures/calibration/openai/loop-health-check.json  enforce: stop  t1 r2 repeated_batch',
      '  2. loop-migrate-retry  fixtures/calibration/canonical/loop-migrate-retry.jsonl  enforce: stop  t2 r4 repeated_batch',
      '  3. clean-poll-build  fixtures/calibration/canonical/clean-poll-build.jsonl  enforce: none  calm',
    ]);
    expect(r.stderr).toBe('loopledger: label asks in a terminal; without one, answer with --batch FILE (one of l, c, s, b, q or enter per line, in the order above)\n');
    expect(existsSync(labels)).toBe(false);
  });

  it('--batch applies the answers through the same keys, and the sweep reads the file', async () => {
    const labels = join(tmp.dir, 'batch.json');
    const answers = tmp.write('answers.txt', '# first the health check\nl\nskip  # decide later\nc\n');
    const r = await runCli(['label', ...FILES, '--calm', '1', '--labels', labels, '--batch', answers]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`labelled 2 sessions (1 loop, 1 clean) in ${labels}; 1 left: run the same command to go on\n`);
    const file = JSON.parse(readFileSync(labels, 'utf8')) as Record<string, unknown>;
    expect(file['loop-health-check']).toEqual({ label: 'loop', turn: 1, round: 2 });
    expect(file['clean-poll-build']).toBe('clean');
    expect(file).not.toHaveProperty('loop-migrate-retry');
    const again = await runCli(['label', ...FILES, '--calm', '1', '--labels', labels]);
    expect(again.code).toBe(2);
    expect(again.stdout).toContain('1 session to label: 1 with findings (worst first), then 0 of 0 calm (seed 1); 2 already labelled in');
  });

  it('a session whose id is "__proto__" is labelled under that key, in a new file and in one already written', async () => {
    // The key is the session's own id, any string a transcript carries: assigned into a plain
    // object, "__proto__" would set the prototype and the label would never reach the file.
    const text = readFileSync(join(ROOT, FILES[0]!), 'utf8').replace('"id":"loop-migrate-retry"', '"id":"__proto__"');
    const session = tmp.write('proto.jsonl', text);
    const clean = join(ROOT, FILES[2]!);
    for (const before of [null, '{"clean-poll-build": "clean"}\n']) {
      const labels = join(tmp.dir, before === null ? 'proto-new.json' : 'proto-old.json');
      if (before !== null) tmp.write(labels.slice(tmp.dir.length + 1), before);
      const r = await runCli(['label', session, clean, '--calm', '1', '--labels', labels, '--batch', tmp.write('proto.txt', 'l\nc\n')]);
      expect(r.code, r.stderr).toBe(0);
      const file = JSON.parse(readFileSync(labels, 'utf8')) as Record<string, unknown>;
      expect(Object.hasOwn(file, '__proto__')).toBe(true);
      expect(file['__proto__']).toEqual({ label: 'loop', turn: 2, round: 4 });
      expect(file['clean-poll-build']).toBe('clean');
      const sweep = await runCli(['sweep', session, clean, '--param', 'tool_batch.max_strikes=2:2:1', '--labels', labels, '--format', 'json']);
      expect(sweep.code, sweep.stderr).toBe(0);
      // The loop labelled "__proto__" is stopped at its turn 2: a true positive, not a session lost.
      const metrics = (JSON.parse(sweep.stdout) as { points: { metrics: Record<string, number> }[] }).points[0]!.metrics;
      expect(metrics).toMatchObject({ tp: 1, fp: 0, tn: 1, fn: 0 });
    }
  });

  it('a bad answer or labels file is one line naming the file', async () => {
    const answers = tmp.write('bad.txt', 'l\nmaybe\n');
    const r = await runCli(['label', ...FILES, '--labels', join(tmp.dir, 'x.json'), '--batch', answers]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`loopledger: --batch ${answers} line 2: "maybe" is no answer (l, c, s, b, q, enter, or loop, clean, skip, back, quit)\n`);
    const broken = tmp.write('broken.json', '{"a": "perhaps"}');
    const b = await runCli(['label', ...FILES, '--labels', broken, '--batch', answers]);
    expect(b.code).toBe(2);
    expect(b.stderr).toBe(`loopledger: labels file ${broken}: "a": expected "loop", "clean" or { "label": "loop", "turn": N }\n`);
  });
});
