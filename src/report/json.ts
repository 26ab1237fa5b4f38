// json: SPEC's shape, the report object itself, pretty-printed in pieces (jsonChunks): the same
// bytes as JSON.stringify(report, null, 2), never held as one string. ndjson: one entry per line,
// each carrying the schema, the config hash, its session id, path, parent, project, model and times, through ndjson's serializer;
// no header line, so every line has the same shape and `jq -c` / log shippers need no special case.
// Sessions without entries write nothing.

import { pipeline, Readable } from 'node:stream';
import ndjson from 'ndjson';
import type { LedgerEntry, LedgerReport, SessionLedger } from '../ledger/types.js';
import { configHash } from '../ledger/config-hash.js';
import { jsonChunks } from './json-stream.js';
import { escapeJsonText } from '../sanitize.js';

/** SPEC: the ledger never echoes looped text unless --excerpts is given. The ledger builder
 *  should not have collected any; this is the last line of defence before output. */
function withoutExcerpts(report: LedgerReport): LedgerReport {
  // Sessions read lazily (a large merge streams them from disk, `Iterable`, not an array): each stripped as it comes.
  if (!Array.isArray(report.sessions)) return { ...report, sessions: lazily(report.sessions as Iterable<SessionLedger>, stripped) as never };
  if (!report.sessions.some((s) => s.entries.some((e) => e.excerpts !== undefined))) return report;
  return { ...report, sessions: report.sessions.map(stripped) };
}

const strip = ({ excerpts: _dropped, ...rest }: LedgerEntry): LedgerEntry => rest;
const stripped = (s: SessionLedger): SessionLedger => (s.entries.some((e) => e.excerpts !== undefined) ? { ...s, entries: s.entries.map(strip) } : s);

/** `f` of each element, as they are iterated (and as often). */
function lazily<T, U>(items: Iterable<T>, f: (t: T) => U): Iterable<U> {
  return {
    *[Symbol.iterator]() {
      for (const t of items) yield f(t);
    },
  };
}

// report > sessions > session > entries > entry: the largest piece is one entry.
const SPLIT_DEPTH = 4;

export function* jsonReportChunks(report: LedgerReport, excerpts: boolean): Generator<string> {
  const r = excerpts ? report : withoutExcerpts(report);
  for (const c of jsonChunks(r, SPLIT_DEPTH)) yield escapeJsonText(c);
  yield '\n';
}

function* ndjsonRecords(report: LedgerReport, excerpts: boolean): Generator<Record<string, unknown>> {
  const r = excerpts ? report : withoutExcerpts(report);
  // What a downstream SUM needs on every line: which schema and configuration made it, and the
  // session's id, file, project and model to group by (docs/scale.md).
  const head = { schema: r.schema, config_hash: r.config_hash ?? configHash(r.config) };
  for (const s of r.sessions) {
    const session = { ...head, session: s.id, path: s.path, parent: s.parent, project: s.project ?? null, model: s.model, started_at: s.started_at ?? null, ended_at: s.ended_at ?? null };
    for (const e of s.entries) yield { ...session, ...e };
    // Findings past the entries listed (ledger/runs.ts MAX_ENTRIES): their counts, one line after the entries.
    if (s.unlisted !== undefined) yield { ...session, unlisted: s.unlisted };
  }
}

/** Records stream through ndjson's serializer with backpressure: memory holds a few lines at a time. */
export async function* ndjsonChunks(report: LedgerReport, excerpts: boolean): AsyncGenerator<string> {
  const out = pipeline(Readable.from(ndjsonRecords(report, excerpts)), ndjson.stringify(), () => {});
  for await (const chunk of out as AsyncIterable<string | Buffer>) yield escapeJsonText(String(chunk));
}
