// `--format html` in a real browser (issue 18): headless Chromium, driven over the DevTools
// protocol on a pipe (bench/cdp.mjs), loads the page of the fixtures and a page of hostile text.
// What is checked is what a browser saw: the rendered DOM (one timeline per session with
// findings), no console message, exception or CSP report, no request but the page itself, the
// inline style and sort script allowed (they ran), and no overflow at 800 px. Screenshots at 1400
// and 800 px, light and dark, land in .tmp/browser/ for a person to look at.
// Skips, saying why, where no Chromium can be had (.ci/run installs Debian's when it can).
// The README's picture, docs/html-page.png, is drawn here too (see "the README's picture" below).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { Browser, findChromium } from '../../bench/cdp.mjs';
import { ONE_BROWSER_LOCK, takeTurn } from '../helpers/one-heavy.js';
import { audit } from '../../src/run/audit.js';
import type { LedgerReport } from '../../src/ledger/types.js';
import { renderReport } from '../../src/report/index.js';
import { entry, report, session } from '../report/fixtures.js';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = join(ROOT, '.tmp', 'browser');
const bin = findChromium();


// The README's picture. Pixels differ between Chromium builds and fonts, so the PNG is never
// compared: it carries the SHA-256 of the page it shows (a tEXt chunk), the test warns when the
// page it renders now is another one, and LOOPLEDGER_README_PNG=1 redraws it. CI never writes it.
const README_PNG = join(ROOT, 'docs', 'html-page.png');
const README_VIEW = { width: 1200, height: 820 };
const PAGE_KEY = 'loopledger-page-sha256';

/** The PNG with a tEXt chunk `key`=`value` after its header (IHDR is always 8 + 25 bytes in). */
function withText(png: Buffer, key: string, value: string): Buffer {
  const body = Buffer.concat([Buffer.from('tEXt', 'latin1'), Buffer.from(`${key}\0${value}`, 'latin1')]);
  const chunk = Buffer.alloc(body.length + 8);
  chunk.writeUInt32BE(body.length - 4, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), body.length + 4);
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
}

/** The PNG's tEXt entries and its size. */
function pngInfo(png: Buffer): { width: number; height: number; text: Record<string, string> } {
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error('not a PNG');
  const text: Record<string, string> = {};
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const [k, v] = png.toString('latin1', at + 8, at + 8 + length).split('\0') as [string, string];
      text[k] = v;
    }
    at += length + 12;
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), text };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe("the README's picture, docs/html-page.png (issue 26)", () => {
  it('is a PNG of the page at 1200 × 820, of modest size, saying which page it shows', () => {
    const png = readFileSync(README_PNG);
    const info = pngInfo(png);
    expect({ width: info.width, height: info.height }).toEqual(README_VIEW);
    expect(png.length).toBeLessThan(400_000);
    expect(info.text[PAGE_KEY]).toMatch(/^[0-9a-f]{64}$/);
  });
});

const PAYLOAD = '"><img src="https://leak.invalid/x.png" onerror="window.__pwned=1"><script>window.__pwned=2</script></svg><svg onload="window.__pwned=3">javascript:alert(1)';

function hostile(): LedgerReport {
  return report([
    session({
      id: `id${PAYLOAD}`, path: `runs/${PAYLOAD}.jsonl`, project: PAYLOAD, model: PAYLOAD, rounds: 6, turns: 1,
      entries: [entry({ round: 2, kind: PAYLOAD, evidence: { tools: PAYLOAD }, excerpts: [PAYLOAD], intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' } })],
      outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 2 }], saved: { rounds: 4, tokens: null, usd: null } } },
    }),
  ]);
}

/** A session whose first turns start on rounds 1, 2 and 3 of 120: their labels would sit side by side. */
function closeTurns(): LedgerReport {
  return report([
    session({
      id: 'close-turns', rounds: 120, turns: 5,
      entries: [entry({ turn: 4, round: 8, intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' } })],
      outcome: { enforce: { steers: 2, stops: [{ turn: 4, round: 8 }], saved: { rounds: 3, tokens: null, usd: null } } },
      timeline: { turn_starts: [[1, 1], [2, 2], [3, 3], [4, 6], [5, 60]], turn_starts_more: 0, spend: [] },
    }),
  ]);
}

describeWith('chromium', 'html in headless Chromium', () => {
  let browser: Browser;
  let releaseBrowserTurn: (() => void) | undefined;
  let fixtures: LedgerReport;
  let page: string;

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    // Relative, as a user types it: the page (and the README's picture) shows no machine's paths.
    fixtures = await audit([relative(process.cwd(), join(ROOT, 'fixtures')) || '.'], { timeline: true, jobs: 1 });
    page = join(OUT, 'fixtures.html');
    writeFileSync(page, await renderReport(fixtures, 'html', {}));
    writeFileSync(join(OUT, 'hostile.html'), await renderReport(hostile(), 'html', { excerpts: true }));
    writeFileSync(join(OUT, 'close-turns.html'), await renderReport(closeTurns(), 'html', {}));
    releaseBrowserTurn = await takeTurn(ONE_BROWSER_LOCK);
    browser = await Browser.launch(bin!);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    releaseBrowserTurn?.();
  });

  it('the fixtures: one timeline per session with findings, no console error, no request leaving the page', async () => {
    const tab = await browser.newPage({ width: 1400, height: 1000 });
    await browser.load(tab, pathToFileURL(page).href);
    const dom = await browser.evaluate<{ sessions: string[]; timelines: number; marked: number; rows: number; style: string; scroll: number }>(
      tab,
      `(() => {
        const arts = [...document.querySelectorAll('article[data-session-id]')];
        return {
          sessions: arts.map((a) => a.dataset.sessionId),
          timelines: arts.filter((a) => a.querySelectorAll('svg.tl').length === 1).length,
          marked: arts.filter((a) => a.querySelector('svg.tl rect[class^="m-"] > title')).length,
          rows: document.querySelectorAll('table.overview tbody tr').length,
          style: getComputedStyle(document.body).maxWidth,
          scroll: document.documentElement.scrollWidth,
        };
      })()`,
    );
    const withFindings = fixtures.sessions.filter((s) => s.entries.length > 0);
    expect(new Set(dom.sessions)).toEqual(new Set(withFindings.map((s) => s.id)));
    expect(dom.timelines).toBe(withFindings.length);
    expect(dom.marked).toBe(withFindings.length);
    expect(dom.rows).toBe(withFindings.length);
    // The inline style sheet applied: its hash was accepted by the policy.
    expect(dom.style).toBe('1400px');
    expect(dom.scroll).toBeLessThanOrEqual(1400);

    // The inline script ran: sorting the overview by rounds, descending.
    await browser.evaluate(tab, `document.querySelector('th.c-rounds button').click()`);
    const sorted = await browser.evaluate<number[]>(tab, `[...document.querySelectorAll('table.overview tbody td.c-rounds')].map((td) => Number(td.textContent))`);
    expect(sorted).toEqual([...sorted].sort((a, b) => b - a));
    expect(await browser.evaluate(tab, `document.querySelector('th.c-rounds').getAttribute('aria-sort')`)).toBe('descending');

    writeFileSync(join(OUT, 'light-1400-top.png'), await browser.screenshot(tab));
    await browser.evaluate(tab, `window.scrollTo(0, document.getElementById('timelines').offsetTop)`);
    writeFileSync(join(OUT, 'light-1400-timelines.png'), await browser.screenshot(tab));

    expect(browser.problems(tab)).toEqual([]);
    expect(browser.requests(tab)).toEqual([pathToFileURL(page).href]);
  }, 60_000);

  it("the README's picture: drawn from this page; redrawn with LOOPLEDGER_README_PNG=1, otherwise a warning when the page changed", async () => {
    const tab = await browser.newPage(README_VIEW);
    await browser.load(tab, pathToFileURL(page).href);
    // The overview cut to its first rows in the picture, so the first timelines fit beside it.
    await browser.evaluate(tab, `document.querySelectorAll('table.overview tbody tr:nth-child(n+6)').forEach((tr) => tr.remove())`);
    const shot = withText(await browser.screenshot(tab), PAGE_KEY, sha256(readFileSync(page, 'utf8')));
    writeFileSync(join(OUT, 'html-page.png'), shot);
    expect(pngInfo(shot).text[PAGE_KEY]).toBe(sha256(readFileSync(page, 'utf8')));
    if (process.env['LOOPLEDGER_README_PNG'] === '1') {
      writeFileSync(README_PNG, shot);
    } else if (!existsSync(README_PNG) || pngInfo(readFileSync(README_PNG)).text[PAGE_KEY] !== sha256(readFileSync(page, 'utf8'))) {
      console.warn(
        'docs/html-page.png shows another page than the fixtures render now: LOOPLEDGER_README_PNG=1 npx vitest run test/browser redraws it ' +
          `(the new one is in ${join(OUT, 'html-page.png')})`,
      );
    }
    expect(browser.problems(tab)).toEqual([]);
  }, 60_000);

  it('800 px wide and dark: nothing overflows the window, dark colours apply', async () => {
    const tab = await browser.newPage({ width: 800, height: 1000, dark: true });
    await browser.load(tab, pathToFileURL(page).href);
    const dom = await browser.evaluate<{ scroll: number; bg: string; tables: number; wider: string[] }>(
      tab,
      `({ scroll: document.documentElement.scrollWidth, bg: getComputedStyle(document.body).backgroundColor,
          tables: document.querySelectorAll('table').length,
          wider: [...document.querySelectorAll('table')].filter((t) => t.scrollWidth > t.parentElement.clientWidth)
            .map((t) => (t.closest('[data-session-id]') || t.closest('section')).getAttribute('data-session-id') || 'overview') })`,
    );
    expect(dom.scroll).toBeLessThanOrEqual(800);
    // Every column of the overview and of each session's findings is seen without scrolling sideways
    // (the saved and round cost columns were cut off once).
    expect(dom.tables).toBeGreaterThan(40);
    expect(dom.wider).toEqual([]);
    expect(dom.bg).toBe('rgb(20, 23, 31)');
    writeFileSync(join(OUT, 'dark-800-top.png'), await browser.screenshot(tab));
    await browser.evaluate(tab, `window.scrollTo(0, document.getElementById('timelines').offsetTop)`);
    writeFileSync(join(OUT, 'dark-800-timelines.png'), await browser.screenshot(tab));
    expect(browser.problems(tab)).toEqual([]);
    expect(browser.requests(tab)).toEqual([pathToFileURL(page).href]);
  }, 60_000);

  // Issue 56 item 5: 'The html page reads "enforce: stop stop at turn 1 round 8"; close turn labels
  // overlap ("t1"/"t2" read "t12")'. Measured as drawn: no two turn labels share a pixel column.
  it('close turns: the labels drawn do not overlap, and the enforce line says its level once', async () => {
    const tab = await browser.newPage({ width: 800, height: 1000 });
    await browser.load(tab, pathToFileURL(join(OUT, 'close-turns.html')).href);
    const dom = await browser.evaluate<{ labels: { text: string; left: number; right: number }[]; meta: string }>(
      tab,
      `(() => ({
        labels: [...document.querySelectorAll('svg.tl text.turn-label')].map((t) => {
          const r = t.getBoundingClientRect();
          return { text: t.textContent, left: r.left, right: r.right };
        }),
        meta: [...document.querySelectorAll('article p.meta')].map((p) => p.textContent).join(' | '),
      }))()`,
    );
    expect(dom.labels.map((l) => l.text)).toContain('t1');
    expect(dom.labels.map((l) => l.text)).toContain('t5');
    for (let i = 1; i < dom.labels.length; i++) expect(dom.labels[i]!.left).toBeGreaterThan(dom.labels[i - 1]!.right);
    expect(dom.meta).toContain('enforce: stop at turn 4 round 8; 2 steers');
    expect(dom.meta).not.toMatch(/\b(stop|steer|noted) \1\b/);
    expect(browser.problems(tab)).toEqual([]);
  }, 60_000);

  it('hostile transcript text: nothing runs, nothing loads, the text is shown as text', async () => {
    const url = pathToFileURL(join(OUT, 'hostile.html')).href;
    const tab = await browser.newPage({ width: 1400, height: 1000 });
    await browser.load(tab, url);
    const dom = await browser.evaluate<{ pwned: unknown; imgs: number; scripts: number; id: string; heading: string }>(
      tab,
      `({
        pwned: window.__pwned ?? null,
        imgs: document.querySelectorAll('img, iframe, object, embed, foreignObject').length,
        scripts: document.scripts.length,
        id: document.querySelector('article').dataset.sessionId,
        heading: document.querySelector('article h3').textContent,
      })`,
    );
    expect(dom).toEqual({ pwned: null, imgs: 0, scripts: 1, id: `id${PAYLOAD}`, heading: `#1 id${PAYLOAD}` });
    expect(browser.problems(tab)).toEqual([]);
    expect(browser.requests(tab)).toEqual([url]);
  }, 60_000);
});
