// How a page of `--format html` fares in a real browser: its size, the time headless Chromium
// takes to load and lay it out, and how many elements it holds.
//   node bench/html.mjs PAGE.html [--width 1400] [--screenshot OUT.png]
// Needs Chromium (see bench/cdp.mjs); prints one line per measure.

import { statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Browser, findChromium } from './cdp.mjs';

const args = process.argv.slice(2);
const page = args.find((a) => !a.startsWith('--'));
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
if (!page) {
  console.error('usage: node bench/html.mjs PAGE.html [--width 1400] [--screenshot OUT.png]');
  process.exit(2);
}
const bin = findChromium();
if (!bin) {
  console.error('bench/html.mjs: no Chromium found (install Debian\'s chromium, or set LOOPLEDGER_CHROMIUM)');
  process.exit(2);
}
const url = pathToFileURL(resolve(page)).href;
const browser = await Browser.launch(bin);
try {
  const tab = await browser.newPage({ width: Number(opt('width', '1400')), height: 1000 });
  const ms = await browser.load(tab, url);
  // Layout of the whole document, then one frame: what a reader waits for before scrolling.
  const laid = await browser.evaluate(
    tab,
    `new Promise((done) => { const t0 = performance.now(); document.body.getBoundingClientRect(); requestAnimationFrame(() => done(performance.now() - t0)); })`,
  );
  const nav = await browser.evaluate(tab, `(() => { const n = performance.getEntriesByType('navigation')[0]; return { dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd }; })()`);
  const counts = await browser.evaluate(
    tab,
    `({ elements: document.getElementsByTagName('*').length, sessions: document.querySelectorAll('[data-session-id]').length, marks: document.querySelectorAll('svg.tl rect[class^="m-"]').length, height: document.documentElement.scrollHeight })`,
  );
  const shot = opt('screenshot', null);
  if (shot) writeFileSync(shot, await browser.screenshot(tab));
  console.log(`page            ${(statSync(page).size / 1024 / 1024).toFixed(2)} MB`);
  console.log(`navigate→load   ${ms.toFixed(0)} ms (DOMContentLoaded at ${nav.dcl.toFixed(0)} ms, load at ${nav.load.toFixed(0)} ms)`);
  console.log(`layout + frame  ${laid.toFixed(0)} ms`);
  console.log(`elements        ${counts.elements} (${counts.sessions} timelines, ${counts.marks} marks), ${counts.height} px tall`);
  const problems = browser.problems(tab);
  const requests = browser.requests(tab).filter((u) => u !== url);
  console.log(`console errors  ${problems.length}${problems.length ? `: ${problems.slice(0, 3).join(' | ')}` : ''}`);
  console.log(`other requests  ${requests.length}`);
} finally {
  await browser.close();
}
