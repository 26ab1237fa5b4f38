// A producer: who wrote a recording (an agent's own telemetry, or a convention any library follows),
// how its items are recognized, what it leaves out, and how its items become turns and rounds.

import type { OtelItem } from './items.js';
import type { SessionDraft } from './draft.js';

export interface Producer {
  /** As it appears in a session's `producer`. */
  name: string;
  /** The version the reader was checked against, and on what. */
  verified: string;
  /** One line: how its items are recognized. */
  detection: string;
  /** What it does not record, so a reader knows what the detectors could not see. */
  unrecorded: string[];
  matches(item: OtelItem): boolean;
  read(items: readonly OtelItem[]): SessionDraft;
}

/** An item's event name without the producer's prefix (`claude_code.api_request` → `api_request`). */
export function eventName(item: OtelItem, prefix: string): string {
  const body = typeof item.body === 'string' && item.body.startsWith(prefix) ? item.body : null;
  const name = item.name.startsWith(prefix) ? item.name : (body ?? item.name);
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}
