// Connector tokens: the words a stalled model keeps re-opening with ("wait, but actually, …").
// Matched on the token's core (letters and digits, lowercased), the same core the word hash uses.

import { fnvString } from './hash.js';

/**
 * Discourse connectors and hesitation markers. Only words that carry no content on their own:
 * a run made purely of them says nothing, which is what stalling is. "no"/"yes" stay out because
 * an emphatic "no, no, no" answers something.
 */
const CONNECTOR_WORDS: readonly string[] = [
  'wait', 'but', 'actually', 'hmm', 'hm', 'hmmm', 'however', 'so', 'well', 'okay', 'ok',
  'alternatively', 'again', 'anyway', 'though', 'although', 'maybe', 'perhaps', 'right', 'also',
  'then', 'now', 'or', 'and', 'um', 'uh', 'oh', 'still', 'yet', 'instead', 'therefore', 'thus',
  'hence', 'besides', 'like', 'really', 'just',
];

/** Core hashes of the connectors (built once from the constant list above). */
const CONNECTOR_HASHES: ReadonlySet<number> = new Set(CONNECTOR_WORDS.map(fnvString));

/**
 * The same hashes in an open-addressing table of int32 (0 marks empty: no connector hashes to 0),
 * probed on every word: a Set keyed by doubles above 2^31 was a boxed-number lookup per word.
 */
const TABLE_BITS = 7;
const CONNECTOR_TABLE: Int32Array = (() => {
  const t = new Int32Array(1 << TABLE_BITS);
  for (const h of CONNECTOR_HASHES) {
    let i = slotOf(h);
    while (t[i] !== 0) i = (i + 1) & ((1 << TABLE_BITS) - 1);
    t[i] = h | 0;
  }
  return t;
})();

function slotOf(h: number): number {
  return Math.imul(h | 0, 0x9e3779b1) >>> (32 - TABLE_BITS);
}

export function isConnectorHash(h: number): boolean {
  const x = h | 0;
  // Word hashes are uint32; anything else (0 for "not a connector" openers included) is never one.
  if (x === 0 || h !== x >>> 0) return false;
  const mask = (1 << TABLE_BITS) - 1;
  for (let i = slotOf(x); ; i = (i + 1) & mask) {
    const t = CONNECTOR_TABLE[i]!;
    if (t === x) return true;
    if (t === 0) return false;
  }
}
