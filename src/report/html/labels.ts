// Labelling from the page (issue 33.2): loop / clean toggles under each drawn session and one
// "download labels" button that saves the labels file `sweep --labels` reads (the same shape as
// `loopledger label` writes). The choices live in the page while it is open; the file is made in
// the browser as a Blob and saved through a download link: nothing is sent anywhere, and the
// script runs under the page's hash-only CSP like the sorting one.

import type { SessionLedger } from '../../ledger/types.js';
import { esc } from './escape.js';

/** Where a loop starts, as the labels file says it: the first finding that would have happened under Enforce. */
function loopStart(s: SessionLedger): { turn: number; round: number } | null {
  const first = s.entries.find((e) => !e.after_stop) ?? s.entries[0];
  return first ? { turn: first.turn, round: first.round } : null;
}

/** The toggles of one session; an interrupt right after a repeat proposes loop (chosen until changed). */
export function labelControls(s: SessionLedger): string {
  const start = loopStart(s);
  const interrupt = (s.interrupts ?? []).find((i) => i.after_repeat);
  const attrs = [
    `data-label-key="${esc(s.id)}"`,
    start ? `data-turn="${start.turn}" data-round="${start.round}"` : '',
    interrupt ? 'data-proposed="loop"' : '',
  ].filter(Boolean);
  const hint = interrupt ? ` <span class="muted">you interrupted it at round ${interrupt.round}, right after a repeat: proposed loop</span>` : '';
  return (
    `<p class="labelbox" ${attrs.join(' ')}>label: ` +
    '<button type="button" data-label="loop" aria-pressed="false">loop</button> ' +
    '<button type="button" data-label="clean" aria-pressed="false">clean</button>' +
    `${hint}</p>`
  );
}

/** The panel with the download button, above the timelines. */
export function labelsPanel(): string {
  return (
    '<p class="labels-panel">Label what you see: <b>loop</b> or <b>clean</b> under each session (click again to clear), then ' +
    '<button type="button" id="download-labels">download labels</button> <span id="labels-count" class="muted">0 labelled</span>' +
    ' <span class="muted small">(a labels file for <code>loopledger sweep --labels FILE</code>; sessions already labelled elsewhere can be merged by hand)</span></p>\n'
  );
}

export const LABELS_STYLE =
  '.labelbox button,.labels-panel button{font:inherit;padding:1px 10px;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg);cursor:pointer}' +
  '.labelbox button[aria-pressed=true][data-label=loop]{background:var(--stop);color:var(--bg)}.labelbox button[aria-pressed=true][data-label=clean]{background:var(--cost);color:var(--bg)}';

export const LABELS_SCRIPT = `
{
  const choices = new Map();
  const boxes = [...document.querySelectorAll('[data-label-key]')];
  const count = document.getElementById('labels-count');
  const show = () => {
    for (const box of boxes) {
      for (const b of box.querySelectorAll('button[data-label]')) b.setAttribute('aria-pressed', String(choices.get(box.dataset.labelKey) === b.dataset.label));
    }
    if (count) count.textContent = choices.size + ' labelled';
  };
  for (const box of boxes) {
    const key = box.dataset.labelKey;
    if (box.dataset.proposed) choices.set(key, box.dataset.proposed);
    for (const b of box.querySelectorAll('button[data-label]')) {
      b.addEventListener('click', () => {
        if (choices.get(key) === b.dataset.label) choices.delete(key);
        else choices.set(key, b.dataset.label);
        show();
      });
    }
  }
  const download = document.getElementById('download-labels');
  if (download) {
    download.addEventListener('click', () => {
      // Prototype-less objects: a session id is any string, and "__proto__" assigned into a plain
      // object would set its prototype instead of a key. The file's own keys go into "$labels".
      const file = Object.create(null);
      file.$comment = 'Labels made on a loopledger page, read by loopledger sweep --labels FILE.';
      const section = Object.create(null);
      for (const box of boxes) {
        const key = box.dataset.labelKey;
        const label = choices.get(key);
        if (!label) continue;
        const value = label === 'loop' && box.dataset.turn
          ? { label: 'loop', turn: Number(box.dataset.turn), round: Number(box.dataset.round) }
          : label;
        if (key === '$comment' || key === '$schema' || key === '$labels') section[key] = value;
        else file[key] = value;
      }
      if (Object.keys(section).length > 0) file.$labels = section;
      const url = URL.createObjectURL(new Blob([JSON.stringify(file, null, 2) + '\\n'], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = 'labels.json';
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    });
  }
  show();
}
`.trim();
