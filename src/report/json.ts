// json: SPEC's shape, the report object itself. ndjson: one entry per line, each carrying its
// session id and path (and parent, for sub-agents), through ndjson's serializer; no header line,
// so every line has the same shape and `jq -c` / log shippers need no special case. Sessions
// without entries write nothing.

import ndjson from 'ndjson';
import type { LedgerEntry, LedgerReport } from '../ledger/types.js';
import { escapeJsonText } from './sanitize.js';

/** SPEC: the ledger never echoes looped text unless --excerpts is given. The ledger builder
 *  should not have collected any; this is the last line of defence before output. */
export function withoutExcerpts(report: LedgerReport): LedgerReport {
  if (!report.sessions.some((s) => s.entries.some((e) => e.excerpts !== undefined))) return report;
  const strip = ({ excerpts: _dropped, ...rest }: LedgerEntry): LedgerEntry => rest;
  return { ...report, sessions: report.sessions.map((s) => ({ ...s, entries: s.entries.map(strip) })) };
}

export function renderJson(report: LedgerReport, excerpts: boolean): string {
  const r = excerpts ? report : withoutExcerpts(report);
  return escapeJsonText(JSON.stringify(r, null, 2)) + '\n';
}

export function ndjsonRecords(report: LedgerReport, excerpts: boolean): Record<string, unknown>[] {
  const r = excerpts ? report : withoutExcerpts(report);
  return r.sessions.flatMap((s) =>
    s.entries.map((e) => ({ session: s.id, path: s.path, parent: s.parent, ...e })),
  );
}

export function renderNdjson(report: LedgerReport, excerpts: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: string[] = [];
    const out = ndjson.stringify();
    out.setEncoding('utf8');
    out.on('data', (c: string) => chunks.push(c));
    out.on('error', reject);
    out.on('end', () => resolve(escapeJsonText(chunks.join(''))));
    for (const r of ndjsonRecords(report, excerpts)) out.write(r);
    out.end();
  });
}
