// An agent's SQLite store as one input: opened as a snapshot (read/sqlite.ts), its tables name the
// format, and its sessions are handed to that format's adapter as records (`lines` counts them).

import type { InputSummary } from '../input.js';
import type { FormatName } from '../../model/transcript.js';
import { openSnapshot, rows, type SqlDatabase } from '../../read/sqlite.js';
import { sanitize } from '../../sanitize.js';
import { isOpenclawDatabase, openclawSessions } from '../openclaw-db.js';
import { cursorSessions, isCursorDatabase } from '../cursor-db.js';
import { isOpencodeDatabase, opencodeSessions } from '../opencode-db.js';
import { hermesSessions, isHermesDatabase } from '../hermes-db.js';
import type { FormatAdapter } from '../types.js';
import { type AdapterRun, SinkFailure } from './adapter-run.js';
import { openChosen } from './conversation.js';
import { messageOf } from './json.js';
import type { SkipTally } from './skips.js';

/** The stores kept in SQLite: how each is recognized by its tables, and read into its format's records. */
const DATABASES: readonly {
  format: FormatName;
  matches(tables: ReadonlySet<string>): boolean;
  sessions(db: SqlDatabase, tables: ReadonlySet<string>): Iterable<{ record: object } | { skip: string }>;
}[] = [
  { format: 'opencode', matches: isOpencodeDatabase, sessions: opencodeSessions },
  { format: 'openclaw', matches: isOpenclawDatabase, sessions: openclawSessions },
  { format: 'cursor', matches: isCursorDatabase, sessions: cursorSessions },
  { format: 'hermes', matches: isHermesDatabase, sessions: hermesSessions },
];

/** Whether a file of this name is worth opening as a database (a cheap test before any read). */
export function mayBeDatabase(path: string): boolean {
  return /\.(db|sqlite3?|vscdb)$/i.test(path);
}

export async function readDatabase(
  input: string,
  summary: InputSummary,
  run: AdapterRun,
  skips: SkipTally,
  forced: FormatName | 'auto' | undefined,
  adapters: readonly FormatAdapter[],
): Promise<InputSummary> {
  let db: SqlDatabase;
  try {
    db = await openSnapshot(input);
  } catch (err) {
    summary.error = sanitize(`cannot read the SQLite database: ${messageOf(err)}`, { max: 500 });
    return summary;
  }
  try {
    const tables = new Set(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r.name)));
    const known = DATABASES.find((d) => d.matches(tables));
    if (!known) {
      summary.error = 'a SQLite database, but no agent store loopledger knows (OpenCode, Kilo, OpenClaw, Cursor, Hermes Agent)';
      summary.not_transcript = 'binary';
      return summary;
    }
    if (!openChosen(summary, run, forced, known.format, adapters)) return summary;
    let records = 0;
    for (const item of known.sessions(db, tables)) {
      if ('skip' in item) {
        skips.skip(null, item.skip);
        continue;
      }
      records += 1;
      run.push(item.record, null);
    }
    summary.lines = records;
    run.close();
  } catch (err) {
    if (err instanceof SinkFailure) throw err;
    summary.error = sanitize(`cannot read the SQLite database: ${messageOf(err)}`, { max: 500 });
  } finally {
    db.close();
  }
  return summary;
}
