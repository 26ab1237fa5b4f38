// Labels from the page (issue 33.2): "`--format html` gets, per session, loop / clean toggles and
// one "download labels" button that saves the same labels file (inline script, within the page's
// CSP: no network, a Blob download) … The browser test clicks through two sessions, downloads, and
// feeds the file to `sweep`." Headless Chromium over the DevTools protocol (bench/cdp.mjs), the
// download folder set with Browser.setDownloadBehavior. Skips, saying why, without a Chromium.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { Browser, findChromium } from '../../bench/cdp.mjs';
import { ONE_BROWSER_LOCK, takeTurn } from '../helpers/one-heavy.js';
import { ensureBuilt, runCli } from '../cli/helpers.js';

const bin = findChromium();

/** Resolves once the browser says a download completed (rejects on a failed one, or after 30 s). */
function downloaded(browser: Browser): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const until = Date.now() + 30_000;
    const poll = () => {
      const ev = browser.events.find((e) => e.method === 'Browser.downloadProgress' && (e.params as { state: string }).state !== 'inProgress');
      if (ev) return (ev.params as { state: string }).state === 'completed' ? resolve() : reject(new Error(`download ${(ev.params as { state: string }).state}`));
      if (Date.now() > until) return reject(new Error('no download in 30 s'));
      setTimeout(poll, 100);
    };
    poll();
  });
}

describeWith('chromium', 'labelling on the html page', () => {
  let browser: Browser;
  let releaseBrowserTurn: (() => void) | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'loopledger-page-labels-'));
  const downloads = join(dir, 'downloads');
  const page = join(dir, 'fixtures.html');
  /** Sessions with findings: each gets a timeline, and so its toggles. */
  let withFindings = 0;

  beforeAll(async () => {
    ensureBuilt();
    const r = await runCli(['fixtures', '--format', 'html', '-o', page]);
    expect(r.code, r.stderr).toBe(0);
    const json = await runCli(['fixtures', '--json']);
    withFindings = (JSON.parse(json.stdout) as { sessions: { entries: unknown[] }[] }).sessions.filter((s) => s.entries.length > 0).length;
    releaseBrowserTurn = await takeTurn(ONE_BROWSER_LOCK);
    browser = await Browser.launch(bin!);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    releaseBrowserTurn?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('two clicks, one download, and the sweep reads the file', async () => {
    await browser.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads, eventsEnabled: true });
    const tab = await browser.newPage({ width: 1400, height: 1000 });
    await browser.load(tab, pathToFileURL(page).href);

    const before = await browser.evaluate<{ boxes: number; proposed: string[]; count: string }>(
      tab,
      `({
        boxes: document.querySelectorAll('article [data-label-key]').length,
        proposed: [...document.querySelectorAll('[data-label-key][data-proposed]')].map((b) => b.dataset.labelKey),
        count: document.getElementById('labels-count').textContent,
      })`,
    );
    expect(before.boxes).toBe(withFindings);
    // The two bundled sessions the user interrupted right after a repeat start as loop.
    expect(before.proposed.sort()).toEqual(['7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5', 'events-backup-check']);
    expect(before.count).toBe('2 labelled');

    const clicked = await browser.evaluate<{ pressed: string[]; count: string }>(
      tab,
      `(() => {
        const click = (key, label) => document.querySelector('[data-label-key="' + key + '"] button[data-label="' + label + '"]').click();
        click('loop-migrate-retry', 'loop');
        click('5a9c3e7b-2d41-4f08-9b6a-e1c7d3f5a280', 'clean');
        // A proposal is only a default: clicking clean replaces it.
        click('events-backup-check', 'clean');
        return {
          pressed: [...document.querySelectorAll('button[aria-pressed="true"]')].map((b) => b.closest('[data-label-key]').dataset.labelKey + '=' + b.dataset.label).sort(),
          count: document.getElementById('labels-count').textContent,
        };
      })()`,
    );
    expect(clicked.pressed).toEqual([
      '5a9c3e7b-2d41-4f08-9b6a-e1c7d3f5a280=clean',
      '7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5=loop',
      'events-backup-check=clean',
      'loop-migrate-retry=loop',
    ]);
    expect(clicked.count).toBe('4 labelled');

    const done = downloaded(browser);
    await browser.evaluate(tab, `document.getElementById('download-labels').click()`);
    await done;

    const file = join(downloads, 'labels.json');
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      $comment: 'Labels made on a loopledger page, read by loopledger sweep --labels FILE.',
      'loop-migrate-retry': { label: 'loop', turn: 2, round: 4 },
      '5a9c3e7b-2d41-4f08-9b6a-e1c7d3f5a280': 'clean',
      '7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5': { label: 'loop', turn: 1, round: 2 },
      'events-backup-check': 'clean',
    });
    // Within the page's CSP: nothing complained, nothing but the page (and the Blob) was asked for.
    expect(browser.problems(tab)).toEqual([]);
    for (const url of browser.requests(tab)) expect(url).toMatch(/^(file:|blob:)/);

    const sweep = await runCli(['sweep', 'fixtures', '--param', 'tool_batch.max_strikes=2:2:1', '--labels', file]);
    expect(sweep.code, sweep.stderr).toBe(0);
    // Every other session of the corpus is unlabelled: its count follows the corpus, four fewer.
    const sessions = Number(/^sweep of \S+: 1 point, (\d+) sessions/m.exec(sweep.stdout)?.[1]);
    expect(sessions).toBeGreaterThan(4);
    expect(sweep.stdout).toContain(`labels: 2 loop, 2 clean; ${sessions - 4} unlabeled sessions counted above but not in the metrics`);
    // The migration loop and the interrupted test fix are stopped; the clean template review is not; the
    // OpenHands journal read is stopped though labelled clean here: one false positive of two.
    // (SAVED and CUT cover the whole corpus: their figures follow it, so only their shape is pinned.)
    expect(sweep.stdout).toMatch(/^ +2 +\S+ \/ \S+ +\S+ \/ \S+ +\S+ \/ \S+ +\S+ · \S+ tok +\S+ · \S+ tok +2 +1 +1 +0 +0\.667 +1\.000 +0\.500 *$/m);
  }, 120_000);

  it('sessions whose ids are "__proto__" and "$comment" are downloaded too, and the sweep reads both (issue 53)', async () => {
    // Before: the page assigned ids into a plain object, so "__proto__" set its prototype and was
    // lost, and "$comment" overwrote the file's comment (which the sweep ignores).
    const loop = readFileSync('fixtures/calibration/canonical/loop-migrate-retry.jsonl', 'utf8');
    const ids = ['__proto__', '$comment'];
    const transcripts = ids.map((id, i) => {
      const file = join(dir, `odd-${i}.jsonl`);
      writeFileSync(file, loop.replace('"id":"loop-migrate-retry"', `"id":${JSON.stringify(id)}`));
      return file;
    });
    const oddPage = join(dir, 'odd.html');
    const r = await runCli([...transcripts, '--format', 'html', '-o', oddPage]);
    expect(r.code, r.stderr).toBe(0);
    const oddDownloads = join(dir, 'odd-downloads');
    browser.events.length = 0;
    await browser.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: oddDownloads, eventsEnabled: true });
    const tab = await browser.newPage({ width: 1400, height: 1000 });
    await browser.load(tab, pathToFileURL(oddPage).href);
    const count = await browser.evaluate<string>(
      tab,
      `(() => {
        for (const box of document.querySelectorAll('[data-label-key]')) box.querySelector('button[data-label="loop"]').click();
        return document.getElementById('labels-count').textContent;
      })()`,
    );
    expect(count).toBe('2 labelled');
    const done = downloaded(browser);
    await browser.evaluate(tab, `document.getElementById('download-labels').click()`);
    await done;
    const file = join(oddDownloads, 'labels.json');
    const text = readFileSync(file, 'utf8');
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(parsed['__proto__']).toEqual({ label: 'loop', turn: 2, round: 4 });
    expect(parsed['$comment']).toBe('Labels made on a loopledger page, read by loopledger sweep --labels FILE.');
    expect(parsed['$labels']).toEqual({ $comment: { label: 'loop', turn: 2, round: 4 } });
    const sweep = await runCli(['sweep', ...transcripts, '--param', 'tool_batch.max_strikes=2:2:1', '--labels', file, '--format', 'json']);
    expect(sweep.code, sweep.stderr).toBe(0);
    expect((JSON.parse(sweep.stdout) as { points: { metrics: Record<string, number> }[] }).points[0]!.metrics).toMatchObject({ tp: 2, fn: 0 });
  }, 120_000);
});
