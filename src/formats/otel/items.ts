// What every container is reduced to before any producer reads it: a span or a log record with its
// ids, times in milliseconds and attributes as one plain object.

import type { Rec } from '../shared/text.js';

export interface OtelEvent {
  name: string;
  time: number;
  attrs: Rec;
}

export interface OtelItem {
  kind: 'span' | 'log';
  /** The span name; for a log record its event name (`event.name`, `eventName`, or a string body). */
  name: string;
  traceId: string | null;
  spanId: string | null;
  parentId: string | null;
  /** Milliseconds since the epoch; NaN when the container gave none. */
  start: number;
  /** Spans only: NaN for a start copy that has not ended (dropped when its finished copy arrives). */
  end: number;
  attrs: Rec;
  /** The resource's attributes (service.name, service.version…). */
  resource: Rec;
  scope: string;
  body: unknown;
  events: OtelEvent[];
  /** 'error' when the status says so (OTLP code 2, `STATUS_CODE_ERROR`, `StatusCode.ERROR`, Jaeger `error` tag). */
  status: 'error' | 'ok' | 'unset';
  line: number | null;
  /** The record's time as written (nanoseconds, observed time too): tells apart two records of one millisecond. */
  stamp: string;
  /** Roughly how many characters the item holds: what the held-record bound counts. */
  size: number;
}

/** The first of these attributes that holds a non-empty string (or a number, as text). */
export function attrString(item: OtelItem, ...keys: string[]): string | null {
  for (const k of keys) {
    const v = item.attrs[k];
    if (typeof v === 'string' && v.length > 0) return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return null;
}

/** An id for what the item is, so that a record exported twice is read once. */
export function identity(item: OtelItem): string {
  if (item.kind === 'span' && item.spanId !== null) return `s:${item.traceId ?? ''}:${item.spanId}`;
  const a = item.attrs;
  const seq = a['event.sequence'] ?? a['tool_result_seq'] ?? a['tool_use_id'] ?? a['call_id'] ?? '';
  return `l:${item.name}:${item.stamp}:${item.start}:${item.spanId ?? ''}:${String(seq)}:${String(a['event.kind'] ?? '')}`;
}
