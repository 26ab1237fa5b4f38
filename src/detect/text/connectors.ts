// Connector tokens: the words a stalled model keeps re-opening with ("wait, but actually, …").
// Matched on the token's core (letters and digits, lowercased), the same core the word hash uses.

import { fnvString } from './hash.js';

/**
 * Discourse connectors and hesitation markers. Only words that carry no content on their own:
 * a run made purely of them says nothing, which is what stalling is. "no"/"yes" stay out because
 * an emphatic "no, no, no" answers something.
 */
export const CONNECTOR_WORDS: readonly string[] = [
  'wait', 'but', 'actually', 'hmm', 'hm', 'hmmm', 'however', 'so', 'well', 'okay', 'ok',
  'alternatively', 'again', 'anyway', 'though', 'although', 'maybe', 'perhaps', 'right', 'also',
  'then', 'now', 'or', 'and', 'um', 'uh', 'oh', 'still', 'yet', 'instead', 'therefore', 'thus',
  'hence', 'besides', 'like', 'really', 'just',
];

/** Core hashes of the connectors (built once from the constant list above). */
export const CONNECTOR_HASHES: ReadonlySet<number> = new Set(CONNECTOR_WORDS.map(fnvString));

export function isConnectorHash(h: number): boolean {
  return CONNECTOR_HASHES.has(h);
}
