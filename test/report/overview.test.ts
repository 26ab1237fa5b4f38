// The overview a person reads over a whole store (SPEC "A whole store at once"): with more
// sessions than --top N, one row per session with findings, worst first, totals over every session,
// then only the top N in full; calm sessions counted, not printed.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EnforceLevel, LedgerReport, SessionLedger } from '../../src/ledger/types.js';
import { compareSessions, planOverview, shortId, shortModel } from '../../src/report/overview.js';
import { renderReport } from '../../src/report/index.js';
import { displayWidth } from '../../src/report/text.js';
import { ESC, HOSTILE, entry, report, session } from './fixtures.js';
import { lineWidths, opts } from './helpers.js';

const lv = (enforce: EnforceLevel) => ({ off: 'none' as const, telemetry: 'noted' as const, enforce });

function stopped(id: string, over: Partial<SessionLedger> = {}): SessionLedger {
  return session({
    id, path: `runs/${id}.jsonl`, rounds: 40, turns: 2,
    entries: [entry({ turn: 2, round: 9, intervention: lv('noted') }), entry({ turn: 2, round: 10, intervention: lv('stop') })],
    outcome: { enforce: { steers: 0, stops: [{ turn: 2, round: 10 }] } },
    ...over,
  });
}
function steered(id: string, over: Partial<SessionLedger> = {}): SessionLedger {
  return session({
    id, path: `runs/${id}.jsonl`, rounds: 12, format: 'codex', model: 'gpt-5-codex',
    entries: [entry({ detector: 'output', kind: 'near_repetition', confidence: 0.8, intervention: lv('steer') })],
    outcome: { enforce: { steers: 1, stops: [] } },
    ...over,
  });
}
function noted(id: string, over: Partial<SessionLedger> = {}): SessionLedger {
  return session({ id, path: `runs/${id}.jsonl`, rounds: 7, entries: [entry({ intervention: lv('noted') })], ...over });
}
function calmOne(i: number): SessionLedger {
  return session({ id: `calm-${String(i).padStart(3, '0')}`, path: `runs/calm-${String(i).padStart(3, '0')}.jsonl`, rounds: 5 });
}

/** 3 stops, 2 steers, 2 noted and `calm` calm sessions, in an order unlike the worst-first one. */
function store(calm = 20): LedgerReport {
  return report([
    noted('n-1'),
    calmOne(1),
    steered('w-1'),
    stopped('s-small', { outcome: { enforce: { steers: 0, stops: [{ turn: 2, round: 10 }], saved: { rounds: 3, tokens: 9000, usd: 0.5 } } } }),
    ...Array.from({ length: calm - 1 }, (_, i) => calmOne(i + 2)),
    stopped('s-big', { outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 4 }, { turn: 2, round: 8 }], saved: { rounds: 30, tokens: 90000, usd: 4.25 } } } }),
    steered('w-2', { outcome: { enforce: { steers: 2, stops: [] } } }),
    noted('n-2'),
    stopped('s-none'),
  ]);
}

const table = (r: LedgerReport, over = {}) => renderReport(r, 'table', opts({ width: 120, ...over }));

describe('which sessions, in which order', () => {
  it('at most --top sessions: every one in full, as before; more: the overview and the top N', () => {
    const r = store();
    expect(planOverview(r.sessions.slice(0, 10), { top: 10, sort: 'level', quiet: false }).overview).toBe(false);
    const p = planOverview(r.sessions, { top: 10, sort: 'level', quiet: false });
    expect(p.overview).toBe(true);
    expect(p.calm).toBe(20);
    expect(Array.from(p.ranked, (s) => s.id)).toEqual(['s-big', 's-small', 's-none', 'w-2', 'w-1', 'n-1', 'n-2']);
    expect(Array.from(p.detailed, (s) => s.id)).toEqual(Array.from(p.ranked, (s) => s.id).slice(0, 7));
    expect(Array.from(planOverview(r.sessions, { top: 2, sort: 'level', quiet: false }).detailed, (s) => s.id)).toEqual(['s-big', 's-small']);
    // --top 0: every session in full, in input order.
    const all = planOverview(r.sessions, { top: 0, sort: 'level', quiet: false });
    expect(all.overview).toBe(false);
    expect(Array.from(all.detailed)).toHaveLength(r.sessions.length);
    expect(all.detailedCount).toBe(r.sessions.length);
  });

  it('SPEC: "stop before steer before noted, then what Enforce would have saved"; --sort saved, cost, path', () => {
    const r = store();
    const order = (sort: 'level' | 'saved' | 'cost' | 'path') => Array.from(planOverview(r.sessions, { top: 1, sort, quiet: false }).ranked, (s) => s.id);
    expect(order('level')).toEqual(['s-big', 's-small', 's-none', 'w-2', 'w-1', 'n-1', 'n-2']);
    expect(order('saved').slice(0, 2)).toEqual(['s-big', 's-small']);
    expect(order('path')).toEqual(['n-1', 'n-2', 's-big', 's-none', 's-small', 'w-1', 'w-2']);
    const costly = report([
      noted('cheap', { cost: { usd: 0.1, reason: null } }),
      noted('dear', { cost: { usd: 9, reason: null } }),
      stopped('unpriced', { cost: { usd: null, reason: 'no price for x' } }),
      noted('mid', { cost: { usd: 2, reason: null } }),
    ]);
    expect(Array.from(planOverview(costly.sessions, { top: 1, sort: 'cost', quiet: false }).ranked, (s) => s.id)).toEqual(['dear', 'mid', 'cheap', 'unpriced']);
  });

  it('property: the order is total and deterministic, whatever the input order', () => {
    const r = store(5);
    fc.assert(
      fc.property(fc.shuffledSubarray(r.sessions, { minLength: r.sessions.length }), fc.constantFrom('level', 'saved', 'cost', 'path' as const), (shuffled, sort) => {
        const a = [...shuffled].sort(compareSessions(sort)).map((s) => s.id);
        const b = [...r.sessions].sort(compareSessions(sort)).map((s) => s.id);
        expect(a).toEqual(b);
      }),
    );
  });

  it('short ids: a UUID shows its first 8 hex digits, as git shows a commit; other ids stay whole', () => {
    expect(shortId('c2ed8711-ae21-4954-81e0-75fc081b30bb')).toBe('c2ed8711');
    expect(shortId('c2ed8711-ae21-4954-81e0-75fc081b30bb/agent-a1b2c3')).toBe('c2ed8711/agent-a1b2c3');
    expect(shortId('rollout-2025-10-01T08-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')).toBe('0199a1b2');
    expect(shortId('looping-test-fix')).toBe('looping-test-fix');
    expect(shortModel('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(shortModel('claude-sonnet-4-5-20250929', false)).toBe('sonnet-4-5');
    expect(shortModel(null)).toBe('–');
  });
});

describe('the overview in the table', () => {
  it('one row per session with findings, worst first; calm ones counted; totals over every session; top N in full', async () => {
    const out = await table(store(), { top: 3 });
    const lines = out.split('\n');
    expect(lines[0]).toBe('27 sessions · 7 with findings, worst first · 20 calm (not listed)');
    // Two sessions carry what Enforce would have saved, so the column is there, "–" for the others.
    const head = lines.findIndex((l) => /^enforce\s+session\s+model\s+rounds\s+findings\s+saved$/.test(l));
    expect(head).toBeGreaterThan(0);
    const rows = lines.slice(head + 1, head + 8);
    expect(rows.map((l) => l.split(/\s{2,}/)[1])).toEqual(['s-big', 's-small', 's-none', 'w-2', 'w-1', 'n-1', 'n-2']);
    expect(rows[0]).toMatch(/^stop t1 r4 \+1\s+s-big\s+claude-sonnet-4-5\s+40\s+2\s+\$4\.25 · 30 rounds$/);
    expect(rows[2]).toMatch(/^stop t2 r10\s+s-none\s+claude-sonnet-4-5\s+40\s+2\s+–$/);
    expect(rows[3]).toMatch(/^steer ×2\s+w-2\s+gpt-5-codex\s+12\s+1\s+–$/);
    expect(rows[5]).toMatch(/^noted\s+n-1\s/);
    expect(lines[head + 8]).toMatch(/^─+$/);
    // 3×40 + 2×12 + 2×7 + 20×5 rounds; 3×2 + 2 + 2 findings.
    expect(lines[head + 9]).toMatch(/^all 27 sessions\s+258\s+10\s+\$4\.75$/);
    expect(out).toContain('enforce would stop 3 sessions and steer 2 · 2 only noted · 20 calm');
    expect(out).toContain('The first 3 follow in full; --top N shows N, --top 0 every session.');
    // Only the top 3 in full, and no calm session anywhere.
    expect(out.match(/^session /gm)).toHaveLength(3);
    expect(out).toContain('session s-big');
    expect(out).not.toContain('session w-1');
    expect(out).not.toContain('calm-0');
    expect(out).not.toContain('no findings');
    // The totals, then the next steps (issue 56 item 2).
    expect(out.split('\n')).toContain('27 sessions · 10 findings · enforce would stop 3 sessions, steer 2 · 0 skipped lines');
  });

  it('--top 0 prints every session in full and no overview', async () => {
    const out = await table(store(), { top: 0 });
    expect(out).not.toContain('with findings, worst first');
    expect(out.match(/^session /gm)).toHaveLength(27);
    expect(out).toContain('session calm-001');
  });

  it('no session with findings: the heading says so and nothing else is listed', async () => {
    const out = await table(report(Array.from({ length: 12 }, (_, i) => calmOne(i))));
    expect(out.split('\n')[0]).toBe('12 sessions, none with findings');
    expect(out).not.toContain('session calm-');
  });

  it('money and project columns appear when the ledger has them, "–" where a value is unknown', async () => {
    const r = store();
    for (const s of r.sessions) {
      s.project = s.id.startsWith('s-') ? '~/src/billing-api' : '~/notes';
      s.usage = { requests: s.rounds, input_tokens: 1000 * s.rounds, cache_read_tokens: 20000 * s.rounds, cache_write_tokens: 0, output_tokens: 500 * s.rounds, reasoning_tokens: 0 };
      s.cost = s.id === 'w-1' ? { usd: null, reason: 'no price for gpt-5-codex' } : { usd: s.rounds * 0.05, reason: null };
      s.outcome.enforce.saved ??= { rounds: 0, tokens: 0, usd: 0 };
    }
    const out = await table(r, { top: 2, width: 160 });
    const lines = out.split('\n');
    expect(lines[2]).toMatch(/^enforce\s+project\s+session\s+model\s+rounds\s+findings\s+tokens\s+cost\s+saved$/);
    expect(lines[3]).toMatch(/^stop t1 r4 \+1\s+~\/src\/billing-api\s+s-big\s+claude-sonnet-4-5\s+40\s+2\s+860k\s+\$2\.00\s+\$4\.25 · 30 rounds$/);
    expect(out).toMatch(/^steer ×1\s+~\/notes\s+w-1 .* 12\s+1\s+258k\s+–\s+0$/m);
    expect(out).toMatch(/^all 27 sessions\s+258\s+10\s+5\.5M\s+\$12\.30\s+\$4\.75$/m);
    expect(out).toContain('Enforce would have saved 33 rounds, 99k tokens, $4.75');
    expect(out).toContain('1 session without a price (–): not in the cost totals');
  });

  it('--sort saved puts the session Enforce would have saved most from first', async () => {
    const r = store();
    r.sessions.find((s) => s.id === 's-small')!.outcome.enforce.saved = { rounds: 300, tokens: 1e6, usd: 40 };
    const out = await table(r, { top: 1, sort: 'saved' });
    expect(out.split('\n')[0]).toContain('most saved by Enforce first');
    expect(out).toContain('session s-small');
    expect(out).not.toContain('session s-big');
  });

  for (const width of [20, 40, 60, 80, 100, 120, 160, 200]) {
    it(`fits a width of ${width}, and keeps the enforce outcome and the session id as long as it can`, async () => {
      const r = store();
      for (const s of r.sessions) {
        s.project = '-home-someone-src-a-project-with-a-rather-long-name';
        s.cost = { usd: 1234.5, reason: null };
        s.outcome.enforce.saved ??= { rounds: 12, tokens: 34567, usd: 12.5 };
      }
      const out = await table(r, { width, top: 2 });
      expect(Math.max(...lineWidths(out)), out).toBeLessThanOrEqual(width);
      expect(out).toMatch(/^stop t1 r4 \+1/m);
      if (width >= 40) expect(out).toMatch(/^stop t1 r4 \+1\s+.*s-big/m);
      if (width >= 80) expect(out).toMatch(/^stop t1 r4 \+1\s+.*s-big.*\$4\.25/m);
    });
  }

  it('property: any ids, models and projects (wide, combining, hostile) stay within the width and neutralized', async () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', '-', '/', '界', '\u0301', '\u200b', ESC, '\x07', '\u202e', '\n', '9'), maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ id: text, model: fc.option(text), project: fc.option(text) }), { minLength: 3, maxLength: 8 }), fc.integer({ min: 30, max: 200 }), async (specs, width) => {
        const sessions = specs.map((x, i) => stopped(`${i}${x.id}`, { model: x.model, project: x.project }));
        const out = await table(report(sessions), { width, top: 1 });
        // Columns as a terminal shows them: wide characters two, combining and zero-width none.
        for (const line of out.split('\n')) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
        expect(out).not.toMatch(/[\x07\u202e]/);
        expect(out.replace(/\x1b\[[0-9;]*m/g, '')).not.toContain(ESC);
      }),
      { numRuns: 60 },
    );
  });

  it('hostile text in an overview row is neutralized in every human format', async () => {
    const sessions = [stopped(`id-${HOSTILE}`, { model: `m${ESC}[2J`, project: `p${HOSTILE}` }), noted('a'), noted('b')];
    for (const f of ['table', 'markdown'] as const) {
      const out = await renderReport(report(sessions), f, opts({ top: 1, color: false }));
      expect(out, f).toContain('with findings');
      expect(out, f).not.toMatch(/[\x07\x1b\u202e\r]/);
    }
  });
});

describe('the overview in markdown', () => {
  it('the same order and totals, as a markdown table; only the top N sections', async () => {
    const r = store();
    for (const s of r.sessions) s.cost = { usd: s.rounds * 0.05, reason: null };
    const out = await renderReport(r, 'markdown', opts({ top: 2 }));
    expect(out).toContain('27 sessions: 7 with findings, worst first; 20 calm, not listed. The first 2 follow in full.');
    expect(out).toContain('| enforce | session | model | rounds | findings | cost |');
    expect(out).toContain('| **stop** t1 r4 +1 | s-big | claude-sonnet-4-5 | 40 | 2 | \\$2.00 |');
    expect(out).toContain('| *steer* ×2 | w-2 | gpt-5-codex | 12 | 1 | \\$0.60 |');
    expect(out).toContain('| **total** | 27 sessions |  | 258 | 10 | \\$12.90 |');
    expect(out.match(/^### /gm)).toHaveLength(2);
    expect(out).not.toContain('calm-0');
  });
});
