// `--format html` (issue 18): one self-contained page whose structure is the template's alone.
// Transcript text (session ids, paths, projects, models, tool names, kinds, excerpts, reasons) is
// fed `"><script>`, `</svg>`, `onerror=`, `javascript:` and arbitrary strings; the page is parsed
// as a browser parses it (parse5, the WHATWG algorithm) and its skeleton of elements and
// attribute names must equal the skeleton of the same ledger with harmless text.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { describe, expect, it } from 'vitest';
import type { SweepResult } from '../../src/calibrate/sweep.js';
import { renderSweep } from '../../src/commands/sweep.js';
import type { LedgerReport, SessionLedger } from '../../src/ledger/types.js';
import { HTML_TIMELINE_BUDGET, MAX_LISTED_FINDINGS, MAX_OVERVIEW_ROWS } from '../../src/report/html/page.js';
import { MAX_COLUMNS } from '../../src/report/html/timeline.js';
import { renderReport } from '../../src/report/index.js';
import { entry, report, session } from './fixtures.js';
import { opts } from './helpers.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

function isElement(n: Node): n is Element {
  return 'tagName' in n;
}

function* elements(n: Node): Generator<Element> {
  if (isElement(n)) yield n;
  const kids = 'childNodes' in n ? n.childNodes : [];
  for (const c of kids) yield* elements(c as Node);
  if (isElement(n) && n.tagName === 'template') yield* elements((n as DefaultTreeAdapterMap['template']).content);
}

function textOf(n: Node): string {
  if (n.nodeName === '#text') return (n as DefaultTreeAdapterMap['textNode']).value;
  return 'childNodes' in n ? n.childNodes.map((c) => textOf(c as Node)).join('') : '';
}

/** Every element with its attribute names, in document order, plus the script and style text. */
function skeleton(html: string): string[] {
  const doc = parse(html);
  const out: string[] = [];
  for (const el of elements(doc)) {
    out.push(`${el.namespaceURI.split('/').at(-1)}:${el.tagName}[${el.attrs.map((a) => a.name).join(',')}]`);
    if (el.tagName === 'script' || el.tagName === 'style') out.push(textOf(el));
  }
  return out;
}

function attrs(html: string): { tag: string; name: string; value: string }[] {
  const out: { tag: string; name: string; value: string }[] = [];
  for (const el of elements(parse(html))) for (const a of el.attrs) out.push({ tag: el.tagName, name: a.name, value: a.value });
  return out;
}

/** Every text field of a ledger set from `text(field)`. */
function ledgerWith(text: (field: string) => string): LedgerReport {
  const s = session({
    id: text('id'),
    path: text('path'),
    project: text('project'),
    model: text('model'),
    parent: text('parent'),
    agent_type: text('agent_type'),
    turns: 2,
    rounds: 12,
    tool_calls: 9,
    usage: { requests: 12, input_tokens: 1000, cache_read_tokens: 0, cache_write_tokens: 0, output_tokens: 200, reasoning_tokens: 0, tokens: 1200 },
    cost: { usd: null, reason: text('cost.reason') },
    entries: [
      entry({
        turn: 1, round: 3, kind: text('kind'), evidence: { tools: text('tools'), signature: text('signature') },
        strike: { count: 3, threshold: 2, total: 3, ceiling: 15, read_only: false },
        intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' }, excerpts: [text('excerpt')],
        round_usage: { tokens: 100, usd: null },
      }),
      entry({ turn: 1, round: 5, detector: 'output', kind: text('kind2'), confidence: 0.9, after_stop: true, intervention: { off: 'none', telemetry: 'noted', enforce: 'none' }, excerpts: [text('excerpt2')] }),
      entry({ turn: 2, round: 9, detector: 'thinking', kind: text('kind3'), confidence: 0.5, judge: { consulted: true, verdict: 'loop', confidence: 0.9, within_budget: true } }),
    ],
    outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 3 }], saved: { rounds: 4, tokens: 400, usd: null } } },
    timeline: { turn_starts: [[1, 1], [2, 8]], turn_starts_more: 0, spend: [[4, 400, null], [12, 1200, null]] },
  });
  return report([s, session({ id: text('calm'), path: text('calm-path') })], {
    tool: { name: 'loopledger', version: text('version') as string },
    pricing: { source: text('pricing.source'), version: text('pricing.version'), data_date: text('pricing.date'), overrides: text('pricing.overrides') },
  });
}

const PAYLOADS = [
  '"><script>window.pwned=1</script>',
  "'><img src=x onerror=alert(1)>",
  '</svg><svg onload=alert(1)>',
  '</title><script>alert(1)</script>',
  'javascript:alert(1)',
  '</textarea></style></noscript><plaintext>',
  '<!-- --><![CDATA[x]]>',
  '&lt;b&gt; &amp; &#x3c;',
  '\u0000\u001b[31m\u202e\u200b',
];

// `top` left unset, as the CLI leaves it without --top: every session with findings is drawn.
const page = (r: LedgerReport) => renderReport(r, 'html', opts({ excerpts: true, top: undefined }));

describe('html: transcript text stays text', () => {
  it('every field carrying a payload yields the same elements and attributes as harmless text', async () => {
    const harmless = skeleton(await page(ledgerWith(() => 'x')));
    for (const p of PAYLOADS) {
      const html = await page(ledgerWith((f) => `${f}:${p}`));
      expect(skeleton(html), p).toEqual(harmless);
      // And the payload is there, as text: in the session's data attribute and its heading.
      const doc = parse(html);
      const article = [...elements(doc)].find((e) => e.attrs.some((a) => a.name === 'data-session-id'))!;
      const expected = `id:${p}`.replace(/[\u0000-\u001f\u202e\u200b]/g, (c) => `\\${c.charCodeAt(0) <= 0xff ? 'x' + c.charCodeAt(0).toString(16).padStart(2, '0') : 'u' + c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      expect(article.attrs.find((a) => a.name === 'data-session-id')!.value).toBe(expected);
      expect(textOf(article)).toContain(expected);
    }
  });

  it('property: arbitrary strings in every field never change the page structure', async () => {
    const harmless = skeleton(await page(ledgerWith(() => 'x')));
    const piece = fc.oneof(
      fc.constantFrom('<', '>', '"', "'", '&', '=', '/', ' ', '\n', '</svg>', '<script>', '</script>', 'onerror=', 'javascript:', '<!--', '-->', ']]>', '</title>', '<style>', '\u0000', '\u2028'),
      fc.string({ minLength: 1, maxLength: 6 }),
    );
    const text = fc.array(piece, { minLength: 1, maxLength: 8 }).map((a) => a.join(''));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('id', 'path', 'project', 'model', 'tools', 'kind', 'excerpt', 'cost.reason', 'parent'), text), async (fields) => {
        const html = await page(ledgerWith((f) => `${f}${fields[f] ?? ''}`));
        expect(skeleton(html)).toEqual(harmless);
      }),
      { numRuns: 60 },
    );
  });

  it('no attribute can load or run anything: links stay in the page, no event handler, no src', async () => {
    const html = await page(ledgerWith((f) => `${f}:${PAYLOADS.join('')}`));
    for (const a of attrs(html)) {
      expect(a.name.startsWith('on'), `${a.tag} ${a.name}`).toBe(false);
      expect(['src', 'srcset', 'action', 'formaction', 'xlink:href', 'background', 'poster']).not.toContain(a.name);
      if (a.name === 'href') expect(a.value).toMatch(/^#s\d+$/);
    }
    const tags = new Set([...elements(parse(html))].map((e) => e.tagName));
    for (const t of ['img', 'iframe', 'object', 'embed', 'link', 'base', 'form', 'foreignObject', 'use', 'image', 'a:not-in-svg']) {
      if (t === 'a:not-in-svg') continue;
      expect(tags.has(t), t).toBe(false);
    }
    expect([...elements(parse(html))].filter((e) => e.tagName === 'script')).toHaveLength(1);
  });

  it('sweep --format html: label names and keys stay text', async () => {
    const result = (p: string): SweepResult => ({
      params: [{ key: `tool_batch.max_strikes${p}`, values: [1, 2] }],
      positive: 'stop',
      max_fpr: 0.1,
      labels: { loop: 1, clean: 1, unmatched: [`missing${p}.jsonl`] },
      points: [1, 2].map((v) => ({
        values: { [`tool_batch.max_strikes${p}`]: v },
        sessions: 2, rounds: 10,
        fired: { sessions: 2, rounds: 4 }, steered: { sessions: 1, rounds: 1 }, stopped: { sessions: 2 - v + 1, rounds: 3 },
        positive_sessions: [], positive_paths: [],
        metrics: { tp: 1, fp: v === 1 ? 1 : 0, tn: v === 1 ? 0 : 1, fn: 0, precision: v === 1 ? 0.5 : 1, recall: 1, fpr: v === 1 ? 1 : 0, unlabeled_sessions: 0 },
      })),
      recommended: { index: 1, values: { [`tool_batch.max_strikes${p}`]: 2 }, precision: 1, recall: 1, fpr: 0 },
      note: null,
      warnings: [],
    });
    const harmless = skeleton(renderSweep(result('x'), { format: 'html', color: false }));
    for (const p of PAYLOADS) expect(skeleton(renderSweep(result(p), { format: 'html', color: false })), p).toEqual(harmless);
  });
});

describe('html: the page', () => {
  const r = report([
    session({ id: 'noted-1', path: 'a.jsonl', rounds: 4, entries: [entry({ round: 2 })] }),
    session({ id: 'calm-1', path: 'b.jsonl', rounds: 3 }),
    session({
      id: 'stop-1', path: 'c.jsonl', turns: 2, rounds: 10,
      entries: [
        entry({ round: 3, intervention: { off: 'none', telemetry: 'noted', enforce: 'noted' } }),
        entry({ round: 4, intervention: { off: 'none', telemetry: 'noted', enforce: 'stop' } }),
        entry({ round: 5, after_stop: true, intervention: { off: 'none', telemetry: 'noted', enforce: 'none' } }),
      ],
      outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 4 }], saved: { rounds: 2, tokens: 50, usd: 0.5 } } },
      timeline: { turn_starts: [[1, 1], [2, 7]], turn_starts_more: 0, spend: [[1, 10, 0.1], [10, 100, 1]] },
    }),
    session({ id: 'steer-1', path: 'd.jsonl', rounds: 6, entries: [entry({ round: 2, detector: 'output', kind: 'exact_block', intervention: { off: 'none', telemetry: 'noted', enforce: 'steer' } })], outcome: { enforce: { steers: 1, stops: [] } } }),
  ]);

  it('opens with the overview, worst first, then a timeline per session with findings; calm sessions counted only', async () => {
    const html = await page(r);
    const doc = parse(html);
    const all = [...elements(doc)];
    const ids = all.filter((e) => e.attrs.some((a) => a.name === 'data-session-id')).map((e) => e.attrs.find((a) => a.name === 'data-session-id')!.value);
    expect(ids).toEqual(['stop-1', 'steer-1', 'noted-1']);
    const rows = all.filter((e) => e.tagName === 'tr' && e.parentNode && (e.parentNode as Element).tagName === 'tbody');
    const overview = rows.slice(0, 3).map((tr) => textOf(tr));
    expect(overview[0]).toMatch(/^1stop t1 r4/);
    expect(overview[1]).toMatch(/^2steer ×1/);
    expect(overview[2]).toMatch(/^3noted/);
    expect(html.indexOf('id="overview"')).toBeLessThan(html.indexOf('id="timelines"'));
    expect(html).toContain('1 calm session (no findings): counted, not drawn.');
    expect(html).not.toContain('calm-1');
    for (const id of ids) expect(html).toMatch(new RegExp(`data-session-id="${id}"[^]*?<svg class="tl"`));
  });

  it('draws the stop: saved rounds shaded up to the next turn, the turn boundary, findings by level with their kind in <title>', async () => {
    const html = await page(r);
    const article = html.slice(html.indexOf('data-session-id="stop-1"'), html.indexOf('</article>', html.indexOf('data-session-id="stop-1"')));
    // Rounds 5–6: after the stop at round 4, before turn 2 at round 7.
    expect(article).toMatch(/<rect class="saved"[^>]*><title>rounds 5–6: Enforce would have ended turn 1 before them; saved 2 rounds \(50 tokens, \$0\.50\), still in the loop<\/title>/);
    expect(article).toMatch(/<line class="turn"[^>]*><title>turn 2 starts at round 7<\/title>/);
    expect(article.match(/<rect class="m-stop"/g)).toHaveLength(1);
    expect(article.match(/<rect class="m-noted"/g)).toHaveLength(1);
    expect(article.match(/<rect class="m-none"/g)).toHaveLength(1);
    expect(article).toMatch(/<title>round 4: 1 finding\nround 4 \(turn 1\) · tool_batch repeated_batch · enforce stop<\/title>/);
    expect(article).toMatch(/<polyline class="cost"[^>]*><title>cumulative list price: \$1\.00 by round 10<\/title>/);
  });

  it('a strict Content-Security-Policy: nothing may load; the inline style and script run by their hash', async () => {
    const html = await page(r);
    const doc = parse(html);
    const all = [...elements(doc)];
    const meta = all.find((e) => e.tagName === 'meta' && e.attrs.some((a) => a.name === 'http-equiv' && a.value === 'Content-Security-Policy'))!;
    const csp = meta.attrs.find((a) => a.name === 'content')!.value;
    const hash = (t: string) => `'sha256-${createHash('sha256').update(t).digest('base64')}'`;
    const style = textOf(all.find((e) => e.tagName === 'style')!);
    const script = textOf(all.find((e) => e.tagName === 'script')!);
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `style-src ${hash(style)}`,
      `script-src ${hash(script)}`,
      "img-src 'none'",
      "connect-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    // No style attribute anywhere (a hash-only style-src would refuse it).
    expect(attrs(html).filter((a) => a.name === 'style')).toEqual([]);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('the page is identical however often it is rendered (no clock, no randomness)', async () => {
    expect(await page(r)).toBe(await page(r));
  });

  it('a ledger without timelines (merged shards, an older ledger) still draws marks and the stop, and says what is missing', async () => {
    const old = report([{ ...r.sessions[2]!, timeline: undefined }]);
    const html = await page(old);
    expect(html).toContain('turn boundaries and spend along the session are not in this ledger');
    // One stop: Enforce's saved rounds follow it.
    expect(html).toMatch(/rounds 5–6: Enforce would have ended turn 1/);
    expect(html.slice(html.indexOf('<article'))).not.toContain('class="turn"');
  });
});

describe('html: bounded', () => {
  function big(sessions: number, entriesEach: number): LedgerReport {
    const list: SessionLedger[] = [];
    for (let i = 0; i < sessions; i++) {
      const entries = Array.from({ length: entriesEach }, (_, k) =>
        entry({ round: k + 1, turn: 1 + Math.floor(k / 50), kind: k % 2 ? 'repeated_batch' : 'ceiling', detector: (['tool_batch', 'output', 'thinking'] as const)[k % 3]!, intervention: { off: 'none', telemetry: 'noted', enforce: k % 7 === 0 ? 'stop' : 'noted' } }),
      );
      list.push(session({ id: `s-${i}`, path: `runs/${i}.jsonl`, rounds: entriesEach, turns: Math.ceil(entriesEach / 50), entries, outcome: { enforce: { steers: 0, stops: [{ turn: 1, round: 1 }] } } }));
    }
    return report(list);
  }

  it(`one session of 30,000 findings: at most ${MAX_COLUMNS} marks per lane, ${MAX_LISTED_FINDINGS} listed`, async () => {
    const html = await page(big(1, 30_000));
    const marks = (html.slice(html.indexOf('<article')).match(/<rect class="m-/g) ?? []).length;
    expect(marks).toBeLessThanOrEqual(3 * MAX_COLUMNS);
    expect(marks).toBeGreaterThan(MAX_COLUMNS);
    expect(html).toContain(`${30_000 - MAX_LISTED_FINDINGS} more findings of this session are drawn above but not listed`);
    expect(html.length).toBeLessThan(1024 * 1024);
  });

  it('3,000 sessions with findings: the overview capped, timelines within the budget, the rest counted', async () => {
    const html = await page(big(3000, 12));
    const drawn = (html.match(/data-session-id=/g) ?? []).length;
    expect(drawn).toBeGreaterThan(100);
    expect(drawn).toBeLessThan(3000);
    expect(html).toContain(`${(3000 - MAX_OVERVIEW_ROWS).toLocaleString('en-US')} more sessions with findings not listed`);
    // One number format: the headline's counts carry separators as the table's do (issue 56 item 5).
    expect(html).toContain('<b>3,000</b><span class="muted">sessions</span>');
    expect(html).toContain(`${(3000 - drawn).toLocaleString('en-US')} more sessions with findings not drawn (the page budget of ${HTML_TIMELINE_BUDGET / 1024 / 1024} MB of timelines)`);
    expect(Buffer.byteLength(html)).toBeLessThan(HTML_TIMELINE_BUDGET + 2 * 1024 * 1024);
  }, 60_000);

  it('--top N draws the N worst and says so', async () => {
    const html = await renderReport(big(30, 3), 'html', opts({ top: 5 }));
    expect((html.match(/data-session-id=/g) ?? []).length).toBe(5);
    expect(html).toContain('25 more sessions with findings not drawn (--top 5)');
  });
});
