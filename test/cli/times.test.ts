// SPEC 0.4 "Time": per session "started_at", "ended_at" (ISO 8601 with offset, or null with
// "times_reason"); `--since T`, `--until T` (a date, a date-time, or a span back from now), `--timezone TZ`,
// `--sort date`; `--by day|week|month` adds "periods" (weeks are ISO weeks), and merge adds them up exactly.

import { readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode, ensureBuilt, repeat, ROOT, runCli, scratch, user } from './helpers.js';

interface TimedSession {
  id: string;
  path: string;
  format: string;
  rounds: number;
  started_at: string | null;
  ended_at: string | null;
  times_reason?: string;
}
interface Period {
  period: string;
  start: string;
  end: string;
  sessions: number;
  rounds: number;
  usd: number | null;
  loop_shapes: { shape: string }[];
}
interface TimedLedger {
  sessions: TimedSession[];
  summary: { sessions: number; rounds: number };
  periods_by?: string;
  timezone?: string;
  periods?: Period[];
}

let space: ReturnType<typeof scratch> | undefined;
afterEach(() => {
  space?.cleanup();
  space = undefined;
});
beforeAll(ensureBuilt);

async function ledger(args: string[], env: Record<string, string | undefined> = {}): Promise<TimedLedger> {
  const r = await runCli([...args, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as TimedLedger;
}

/** Every `timestamp` a JSONL file's records carry, as instants: what the session's span must cover exactly. */
function recordTimes(path: string, pick: (record: Record<string, unknown>) => unknown = (r) => r['timestamp']): number[] {
  const out: number[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const t = pick(JSON.parse(line) as Record<string, unknown>);
    if (typeof t === 'string' && Number.isFinite(Date.parse(t))) out.push(Date.parse(t));
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A looping Claude Code session whose records are one minute apart from `start`. */
function timedSession(id: string, start: string, rounds = 4): string {
  const t0 = Date.parse(start);
  const lines = claudeCode([user('fix it'), ...repeat([['Bash', { command: 'npm test' }]], rounds, 'same')], id).trim().split('\n');
  return lines.map((l, i) => JSON.stringify({ ...(JSON.parse(l) as object), timestamp: iso(t0 + i * 60_000) })).join('\n') + '\n';
}

describe('every session says when it ran', () => {
  it("spans exactly its records' first and last time, in each format's fixtures", async () => {
    const cases: [string, (r: Record<string, unknown>) => unknown][] = [
      ['claude-code/looping-test-fix.jsonl', (r) => r['timestamp']],
      ['codex/rollout-2026-02-20T16-41-09-0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37.jsonl', (r) => r['timestamp']],
      ['gemini/session-2026-03-02T10-15-6f1c2d3e.jsonl', (r) => r['timestamp']],
      ['canonical/kinds.jsonl', (r) => r['timestamp']],
    ];
    for (const [file, pick] of cases) {
      const path = join(ROOT, 'fixtures', file);
      const report = await ledger([path]);
      const times = recordTimes(path, pick);
      expect(times.length, file).toBeGreaterThan(0);
      const starts = report.sessions.map((s) => Date.parse(s.started_at!));
      const ends = report.sessions.map((s) => Date.parse(s.ended_at!));
      expect(iso(Math.min(...starts)), file).toBe(iso(Math.min(...times)));
      expect(iso(Math.max(...ends)), file).toBe(iso(Math.max(...times)));
      for (const s of report.sessions) expect(s.started_at! <= s.ended_at!, file).toBe(true);
    }
  });

  it('is null with a reason where the format records no time', async () => {
    const report = await ledger([join(ROOT, 'fixtures', 'anthropic', 'looping-deploy.json')]);
    expect(report.sessions[0]).toMatchObject({ started_at: null, ended_at: null, times_reason: 'no record of this session carries a time' });
  });

  it('is shown in the session header, the overview and the page, on the --timezone clock', async () => {
    const path = join(ROOT, 'fixtures', 'claude-code', 'looping-test-fix.jsonl');
    // The fixture's records run from 09:14:06Z to 09:14:34Z on 2026-03-12: 18:14 in Tokyo.
    const table = await runCli([path, '-z', 'Asia/Tokyo']);
    expect(table.stdout).toContain('2026-03-12 18:14 → 18:14');
    const html = await runCli([path, '--format', 'html', '--timezone', 'America/New_York']);
    expect(html.stdout).toContain('2026-03-12 05:14 → 05:14');
    const ndjson = await runCli([path, '--format', 'ndjson']);
    const line = JSON.parse(ndjson.stdout.split('\n')[0]!) as Record<string, unknown>;
    expect(line['started_at']).toBe('2026-03-12T09:14:06.020Z');
  });
});

describe('--since, --until and --sort date', () => {
  it('keep the sessions that ran within the window, a date counting whole in the zone given', async () => {
    space = scratch('loopledger-times-');
    space.write('a.jsonl', timedSession('aaaaaaaa-0000-4000-8000-000000000001', '2026-11-28T23:30:00Z'));
    space.write('b.jsonl', timedSession('bbbbbbbb-0000-4000-8000-000000000002', '2026-11-29T23:30:00Z'));
    space.write('c.jsonl', timedSession('cccccccc-0000-4000-8000-000000000003', '2026-12-01T12:00:00Z'));
    const ids = (r: TimedLedger) => r.sessions.map((s) => s.id.slice(0, 8)).sort();
    expect(ids(await ledger([space.dir, '--since', '2026-11-29', '--until', '2026-11-30', '-z', 'UTC']))).toEqual(['bbbbbbbb']);
    // In Berlin (UTC+1), a's 23:30Z is already the 29th, and b's the 30th.
    expect(ids(await ledger([space.dir, '-s', '20261129', '-u', '20261130', '--timezone', 'Europe/Berlin']))).toEqual(['aaaaaaaa', 'bbbbbbbb']);
    expect(ids(await ledger([space.dir, '--since', '2026-12-01T11:00:00+00:00']))).toEqual(['cccccccc']);
    // A session overlapping the bound counts: a runs 23:30–23:34 UTC.
    expect(ids(await ledger([space.dir, '--until', '2026-11-28T23:32', '-z', 'UTC']))).toEqual(['aaaaaaaa']);

    const byDate = await ledger([space.dir, '--sort', 'date', '--top', '1']);
    expect(byDate.sessions.length).toBe(3);
    const table = await runCli([space.dir, '--sort', 'date', '--top', '1', '-z', 'UTC']);
    const overview = table.stdout.split('\n').filter((l) => /\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(l) && /stop|steer|noted/.test(l));
    expect(overview.map((l) => /\d{4}-\d{2}-\d{2}/.exec(l)![0])).toEqual(['2026-12-01', '2026-11-29', '2026-11-28']);
  });

  it('take a span back from now, and do not read a file unchanged since before --since', async () => {
    space = scratch('loopledger-times-');
    const now = Date.now();
    space.write('recent.jsonl', timedSession('dddddddd-0000-4000-8000-000000000004', iso(now - 3_600_000)));
    const old = space.write('old.jsonl', timedSession('eeeeeeee-0000-4000-8000-000000000005', iso(now - 10 * 86_400_000)));
    // The old file's content is ten days old, and so is its last change.
    utimesSync(old, (now - 9 * 86_400_000) / 1000, (now - 9 * 86_400_000) / 1000);
    const r = await runCli([space.dir, '--since', '7d', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as TimedLedger & { inputs: { path: string }[] };
    expect(report.sessions.map((s) => s.id.slice(0, 8))).toEqual(['dddddddd']);
    expect(report.inputs.map((i) => i.path)).toEqual([join(space.dir, 'recent.jsonl')]);
    expect(r.stderr).toContain('1 file unchanged since before --since, not read');
    const wider = await ledger([space.dir, '--since', '2w']);
    expect(wider.sessions.length).toBe(2);
  });

  it('refuse a bound or a zone they cannot read, with exit 2', async () => {
    for (const args of [['--since', 'last tuesday'], ['--until', '2026-02-30'], ['--timezone', 'Mars/Olympus'], ['--since', '2026-12-02', '--until', '2026-12-01']]) {
      const r = await runCli([join(ROOT, 'fixtures', 'claude-code', 'looping-test-fix.jsonl'), ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/--since|--until|--timezone/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('--by day|week|month', () => {
  it('adds the sessions up per ISO week of the zone, with the bounds in its offset', async () => {
    space = scratch('loopledger-times-');
    // 2026-12-31 (Thursday) is in 2026-W53; 2027-01-04 (Monday) opens 2027-W01; 2021-01-03 (Sunday) is 2020-W53.
    space.write('a.jsonl', timedSession('aaaaaaaa-0000-4000-8000-000000000001', '2026-12-31T10:00:00Z'));
    space.write('b.jsonl', timedSession('bbbbbbbb-0000-4000-8000-000000000002', '2027-01-03T10:00:00Z', 6));
    space.write('c.jsonl', timedSession('cccccccc-0000-4000-8000-000000000003', '2027-01-04T10:00:00Z'));
    space.write('d.jsonl', timedSession('dddddddd-0000-4000-8000-000000000004', '2021-01-03T10:00:00Z'));
    const report = await ledger([space.dir, '--by', 'week', '-z', 'Europe/Berlin']);
    expect(report.periods_by).toBe('week');
    expect(report.timezone).toBe('Europe/Berlin');
    expect(report.periods!.map((p) => [p.period, p.sessions])).toEqual([
      ['2020-W53', 1],
      ['2026-W53', 2],
      ['2027-W01', 1],
    ]);
    const w53 = report.periods![1]!;
    expect([w53.start, w53.end]).toEqual(['2026-12-28T00:00:00+01:00', '2027-01-04T00:00:00+01:00']);
    expect(w53.rounds).toBe(report.sessions.filter((s) => /^(aaaa|bbbb)/.test(s.id)).reduce((n, s) => n + s.rounds, 0));
    expect(w53.loop_shapes[0]?.shape).toBe('Bash(npm test)');

    const months = await ledger([space.dir, '--by', 'month', '-z', 'America/Los_Angeles']);
    expect(months.periods!.map((p) => p.period)).toEqual(['2021-01', '2026-12', '2027-01']);
    expect(months.periods![1]!.start).toBe('2026-12-01T00:00:00-08:00');
    const days = await ledger([space.dir, '--by', 'day', '-z', 'UTC']);
    expect(days.periods!.map((p) => p.period)).toEqual(['2021-01-03', '2026-12-31', '2027-01-03', '2027-01-04']);

    const table = await runCli([space.dir, '--by', 'week', '-z', 'Europe/Berlin']);
    expect(table.stdout).toMatch(/By week \(ISO weeks\), Europe\/Berlin\n.*period.*sessions.*rounds/);
    expect(table.stdout).toMatch(/2026-W53\s+2\s/);
    const md = await runCli([space.dir, '--by', 'week', '--format', 'markdown']);
    expect(md.stdout).toMatch(/\| 2026-W53 \| 2 \|/);
    const html = await runCli([space.dir, '--by', 'month', '--format', 'html']);
    expect(html.stdout).toContain('<section id="periods">');
    expect(html.stdout).toMatch(/<section id="periods">[^]*<svg class="tl"[^]*2026-12[^]*<\/svg>/);
    expect(html.stdout).not.toMatch(/<rect[^>]* style=/);
  });

  it('is the same after analyze --shard K/N and merge as one run, byte for byte', async () => {
    const fixtures = join(ROOT, 'fixtures');
    const args = [fixtures, '--by', 'week', '-z', 'Europe/Berlin', '--since', '2026-01-01', '--format', 'json'];
    space = scratch('loopledger-times-');
    const one = await runCli(args);
    const shards: string[] = [];
    for (const k of [1, 2, 3]) {
      const out = join(space.dir, `shard-${k}.json`);
      const r = await runCli([...args, '--shard', `${k}/3`, '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      shards.push(out);
    }
    const merged = await runCli(['merge', ...shards, '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    const a = JSON.parse(one.stdout) as TimedLedger;
    expect(a.periods!.length).toBeGreaterThan(3);
    expect(merged.stdout).toBe(one.stdout);
  });
});

describe('times on the real recordings (read in place)', () => {
  const real = join(ROOT, '..', 'shared', 'recordings', 'real');
  const files = (dir: string) => {
    try {
      return readdirSync(join(real, dir)).filter((f) => f.endsWith('.jsonl')).map((f) => join(real, dir, f));
    } catch {
      return [];
    }
  };
  const jsonl = [...files('claude-code'), ...files('codex'), ...files('gemini')];
  it.skipIf(jsonl.length === 0)('span exactly the records of Claude Code, Codex and Gemini CLI files', async () => {
    for (const path of jsonl) {
      const report = await ledger([path]);
      const times = recordTimes(path);
      const dated = report.sessions.filter((s) => s.started_at !== null);
      if (times.length === 0) {
        expect(dated, path).toEqual([]);
        continue;
      }
      expect(dated.length, path).toBeGreaterThan(0);
      expect(iso(Math.min(...dated.map((s) => Date.parse(s.started_at!)))), path).toBe(iso(Math.min(...times)));
      expect(iso(Math.max(...dated.map((s) => Date.parse(s.ended_at!)))), path).toBe(iso(Math.max(...times)));
    }
  });
});
