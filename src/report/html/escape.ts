// Transcript text in a page: every string that did not come from the template passes through
// `esc` before it is written, whether it lands in an element's text, an SVG <title> or a
// double-quoted attribute. Control, bidi and zero-width characters are first made visible (as in
// every human format), then the five characters that can end a text run or an attribute value are
// written as character references, so `"><script>`, `</svg>` or `onerror=` stay inert text.

import { sanitize } from '../../sanitize.js';

const SPECIAL = /[&<>"']/g;
const REF: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe in element content and in a double- or single-quoted attribute value. */
export function esc(text: unknown): string {
  return sanitize(text).replace(SPECIAL, (c) => REF[c]!);
}

/** A number as SVG wants it: at most two decimals, never `NaN` or an exponent. */
export function num(n: number): string {
  if (!Number.isFinite(n)) return '0';
  return String(Math.round(n * 100) / 100);
}
