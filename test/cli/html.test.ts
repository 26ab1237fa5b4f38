// `--format html` through the built binary: a page written atomically with -o, the fixtures' turn
// boundaries and spend drawn from the ledger's timeline, and the JSON ledger unchanged by it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, scratch } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('loopledger --format html', () => {
  it('writes one page per run with a timeline per session with findings; json never carries the timeline', async () => {
    const tmp = scratch();
    try {
      const out = join(tmp.dir, 'ledger.html');
      const html = await runCli(['fixtures/claude-code', '--format', 'html', '-o', out]);
      expect(html.code).toBe(0);
      expect(html.stdout).toBe('');
      const page = readFileSync(out, 'utf8');
      const json = await runCli(['fixtures/claude-code', '--json']);
      const ledger = JSON.parse(json.stdout);
      expect(json.stdout).not.toContain('"timeline"');
      const withFindings = ledger.sessions.filter((s: { entries: unknown[] }) => s.entries.length > 0);
      expect(withFindings.length).toBeGreaterThan(0);
      for (const s of withFindings) expect(page).toContain(`data-session-id="${s.id}"`);
      expect(page.match(/<article class="session"/g)).toHaveLength(withFindings.length);
      // A two-turn session shows where its second turn starts (from the ledger's timeline).
      const twoTurns = withFindings.find((s: { turns: number }) => s.turns >= 2);
      expect(twoTurns).toBeDefined();
      const art = page.slice(page.indexOf(`data-session-id="${twoTurns.id}"`));
      expect(art.slice(0, art.indexOf('</article>'))).toMatch(/<line class="turn"[^>]*><title>turn 2 starts at round \d+<\/title>/);
    } finally {
      tmp.cleanup();
    }
  });

  it('sweep --format html plots the sweep', async () => {
    const r = await runCli(['sweep', join(ROOT, 'fixtures/calibration'), '--param', 'tool_batch.max_strikes=1:3:1', '--labels', join(ROOT, 'fixtures/.labels.json'), '--max-fpr', '0.2', '--format', 'html']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(r.stdout).toMatch(/<polyline class="l-recall"/);
    expect(r.stdout).toMatch(/<line class="rec"[^>]*><title>recommended<\/title>/);
    expect(r.stdout).toContain('recommended: <span class="mono">tool_batch.max_strikes=');
  });
});
