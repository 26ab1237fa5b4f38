// The page around the content: one style sheet and one small script, both inline and allowed by
// their hash alone. The Content-Security-Policy forbids everything else (no fetch, image, font,
// frame, form or base URL), so even text that escaped escaping could neither run nor call home.

import { createHash } from 'node:crypto';
import { esc } from './escape.js';
import { LABELS_STYLE } from './labels.js';

/** Light by default, dark when the reader's system asks; print always light, sessions unbroken. */
const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1d2230;--muted:#5c6475;--line:#d6dae3;--lane:#f3f5f9;--stop:#c62828;--steer:#e07000;--noted:#1f63c6;--none:#8d94a3;--saved:#c62828;--saved-o:.13;--cut:#5b3cc4;--cut-o:.16;--turn:#7b8394;--cost:#2e7d32;--row:#f7f8fb}
@media (prefers-color-scheme:dark){:root{--bg:#14171f;--fg:#e3e6ee;--muted:#9aa3b5;--line:#343a48;--lane:#1d212c;--stop:#ff6b6b;--steer:#ffa94d;--noted:#6ea8fe;--none:#7d8596;--saved:#ff6b6b;--saved-o:.18;--cut:#b197fc;--cut-o:.2;--turn:#8b93a6;--cost:#69db7c;--row:#1a1e28}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1400px;padding:16px 24px 40px;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:22px;margin:4px 0 2px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:14px;margin:0 0 2px;font-weight:600;overflow-wrap:anywhere}
p{margin:4px 0}.muted{color:var(--muted)}.small{font-size:12px}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;white-space:nowrap}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:var(--row)}
th button{all:unset;cursor:pointer}th button:focus-visible{outline:2px solid var(--noted)}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
.wrap{overflow-x:auto}
.overview td{white-space:nowrap}.overview td.c-project{white-space:normal;overflow-wrap:anywhere;min-width:12ch;max-width:28ch}
a{color:var(--noted)}
.lvl{font-weight:600}.lvl-stop{color:var(--stop)}.lvl-steer{color:var(--steer)}.lvl-noted{color:var(--noted)}.lvl-none{color:var(--none)}
.totals{display:flex;flex-wrap:wrap;gap:6px 22px;margin:10px 0}.totals b{font-size:18px;display:block}
.legend{display:flex;flex-wrap:wrap;gap:4px 18px;align-items:center;font-size:12px;color:var(--muted);margin:6px 0 12px}
.legend svg{vertical-align:middle;margin-right:4px}
.session{border:1px solid var(--line);border-radius:6px;padding:10px 12px;margin:12px 0;break-inside:avoid}
.session .meta{font-size:12.5px;color:var(--muted);overflow-wrap:anywhere}
.session svg.tl{display:block;width:100%;height:auto;margin:6px 0 4px}
.session table{font-size:12px}
.more{font-style:italic;color:var(--muted);margin:10px 0}
svg text{fill:var(--muted);font:11px system-ui,sans-serif}
svg .lane{fill:var(--lane)}svg .axis{stroke:var(--line)}svg .tick{stroke:var(--line)}
svg .turn{stroke:var(--turn);stroke-width:1;stroke-dasharray:3 3}svg .turn-tick{stroke:var(--turn);stroke-width:1.2}
svg .saved{fill:var(--saved);fill-opacity:var(--saved-o)}svg .cut{fill:var(--cut);fill-opacity:var(--cut-o)}
svg .m-stop{fill:var(--stop)}svg .m-steer{fill:var(--steer)}svg .m-noted{fill:var(--noted)}svg .m-none{fill:var(--none)}
svg .cost{fill:none;stroke:var(--cost);stroke-width:1.6}svg text.costlbl{fill:var(--cost)}
svg .s-stop{stroke:var(--stop)}svg .s-steer{stroke:var(--steer)}svg .s-noted{stroke:var(--noted)}svg .s-none{stroke:var(--none)}
svg .l-stop{fill:none;stroke:var(--stop);stroke-width:2}svg .l-fired{fill:none;stroke:var(--noted);stroke-width:2}svg .l-steer{fill:none;stroke:var(--steer);stroke-width:2}
svg .l-precision{fill:none;stroke:var(--cost);stroke-width:2}svg .l-recall{fill:none;stroke:var(--noted);stroke-width:2}svg .l-fpr{fill:none;stroke:var(--stop);stroke-width:2}
svg .dot{stroke:var(--bg);stroke-width:1}svg .d-stop,svg .d-fpr{fill:var(--stop)}svg .d-steer{fill:var(--steer)}svg .d-fired,svg .d-recall{fill:var(--noted)}svg .d-precision{fill:var(--cost)}svg .rec{stroke:var(--fg);stroke-width:1.5;stroke-dasharray:4 3}
svg .bound{stroke:var(--stop);stroke-width:1;stroke-dasharray:2 3}
@media (max-width:900px){svg text{font-size:15px}.session table{font-size:11px}.session td{white-space:nowrap}.session td.tools,.session td.mono{white-space:normal;overflow-wrap:anywhere}.session th{white-space:normal}.overview .c-project,.overview .c-tokens,.overview .c-started{display:none}.overview td.c-model,.overview td.c-session,.overview td.c-saved{white-space:normal;overflow-wrap:anywhere}.overview td.c-model{min-width:10ch}body{padding:12px}}
@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--line:#bbb;--lane:#f2f2f2;--row:#fff}body{max-width:none;padding:0}th button::after{content:""}.session{page-break-inside:avoid}}
${LABELS_STYLE}
`.trim();

/** Sorts a table whose header cells hold buttons, by each cell's `data-v` (numbers as numbers). */
const SCRIPT = `
for (const table of document.querySelectorAll('table.sortable')) {
  const heads = [...table.tHead.rows[0].cells];
  heads.forEach((th, col) => {
    const button = th.querySelector('button');
    if (!button) return;
    button.addEventListener('click', () => {
      const dir = th.getAttribute('aria-sort') === 'descending' ? 'ascending' : 'descending';
      for (const h of heads) h.removeAttribute('aria-sort');
      th.setAttribute('aria-sort', dir);
      const body = table.tBodies[0];
      const key = (row) => {
        const v = row.cells[col].dataset.v ?? row.cells[col].textContent;
        const n = Number(v);
        return v !== '' && Number.isFinite(n) ? n : v;
      };
      const rows = [...body.rows].map((r, i) => [key(r), i, r]);
      rows.sort((a, b) => {
        const x = a[0], y = b[0];
        const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
        return (dir === 'ascending' ? c : -c) || a[1] - b[1];
      });
      for (const [, , r] of rows) body.appendChild(r);
    });
  });
}
`.trim();

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** Nothing may load or connect; the style sheet and script run only because their hashes match. */
function contentSecurityPolicy(script: boolean, extra: string): string {
  return [
    "default-src 'none'",
    `style-src ${sha256(STYLE)}`,
    `script-src ${script ? sha256(scriptText(extra)) : "'none'"}`,
    "img-src 'none'",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The one inline script: sorting, then a page's own part (the ledger page's label toggles). */
function scriptText(extra: string): string {
  return extra === '' ? SCRIPT : `${SCRIPT}\n${extra}`;
}

/** Everything up to and including `<body>`; `extra` is script the page adds (hashed with the rest). */
export function pageHead(title: string, script: boolean, extra = ''): string {
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<meta http-equiv="Content-Security-Policy" content="${esc(contentSecurityPolicy(script, extra))}">\n` +
    '<meta name="referrer" content="no-referrer">\n' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n' +
    '<meta name="color-scheme" content="light dark">\n' +
    `<title>${esc(title)}</title>\n<style>${STYLE}</style>\n</head>\n<body>\n`
  );
}

/** The closing part: the script (when the page has a sortable table) and the end tags. */
export function pageTail(script: boolean, extra = ''): string {
  return `${script ? `<script>${scriptText(extra)}</script>\n` : ''}</body>\n</html>\n`;
}
