// OpenClaw's per-agent SQLite store (`agents/<agent>/agent/openclaw-agent.sqlite`): its
// `transcript_events` table keeps each session's pi-style entries in order (`seq`), the JSON in
// `event_json`, or compressed with zstd in `event_zstd` (large events), which Node 20 cannot read:
// such an event is reported, and its place in the tree kept from the summary OpenClaw stores beside
// it (`navigation_json.navigation`: type, id, parentId), so the entries after it are still read.

import { rows, type SqlDatabase } from '../read/sqlite.js';
import { isRec, parseJsonString, type Rec } from './shared/text.js';

/** Whether a database with these tables is an OpenClaw agent's store. */
export function isOpenclawDatabase(tables: ReadonlySet<string>): boolean {
  return tables.has('transcript_events') && tables.has('session_nodes');
}

/** Each session as `{openclawSession, events}`, in the order sessions began; an event that cannot be read is a skip. */
export function* openclawSessions(db: SqlDatabase): Generator<{ record: Rec } | { skip: string }> {
  const sessions = rows(db, 'SELECT session_id FROM transcript_events GROUP BY session_id ORDER BY MIN(created_at), session_id');
  for (const s of sessions) {
    const events: Rec[] = [];
    const skips: string[] = [];
    const query = 'SELECT seq, event_json, event_zstd IS NOT NULL AS compressed, navigation_json FROM transcript_events WHERE session_id = ? ORDER BY seq';
    for (const e of rows(db, query, [s.session_id])) {
      const where = `session ${String(s.session_id)} event ${String(e.seq)}`;
      if (typeof e.event_json !== 'string') {
        skips.push(e.compressed ? `${where}: compressed with zstd, which Node 20 cannot read` : `${where}: no event_json`);
        const place = placeOf(e.navigation_json);
        if (place) events.push(place);
        continue;
      }
      const event = parseJsonString(e.event_json);
      if (isRec(event)) events.push(event);
      else skips.push(`${where}: its event_json is not a JSON object`);
    }
    for (const skip of skips) yield { skip };
    yield { record: { openclawSession: s.session_id, events } };
  }
}

/** An unreadable event's place in the tree, from its navigation summary: an entry of its own kind, never read as a message. */
function placeOf(navigation: unknown): Rec | null {
  const summary = parseJsonString(navigation);
  const nav = isRec(summary) && isRec(summary.navigation) ? summary.navigation : null;
  return nav && typeof nav.id === 'string' ? { type: 'compressed event', id: nav.id, parentId: nav.parentId ?? null } : null;
}
