// json: SPEC's shape, the report object itself. ndjson: one entry per line, each carrying its
// session id and path (and parent, for sub-agents), through ndjson's serializer; no header line,
// so every line has the same shape and `jq -c` / log shippers need no special case. Sessions
// without entries write nothing.

import ndjson from 'ndjson';
import type { LedgerReport } from '../ledger/types.js';
import { escapeJsonText } from './sanitize.js';

export function renderJson(report: LedgerReport): string {
  return escapeJsonText(JSON.stringify(report, null, 2)) + '\n';
}

export function ndjsonRecords(report: LedgerReport): Record<string, unknown>[] {
  return report.sessions.flatMap((s) =>
    s.entries.map((e) => ({ session: s.id, path: s.path, parent: s.parent, ...e })),
  );
}

export function renderNdjson(report: LedgerReport): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: string[] = [];
    const out = ndjson.stringify();
    out.setEncoding('utf8');
    out.on('data', (c: string) => chunks.push(c));
    out.on('error', reject);
    out.on('end', () => resolve(escapeJsonText(chunks.join(''))));
    for (const r of ndjsonRecords(report)) out.write(r);
    out.end();
  });
}
