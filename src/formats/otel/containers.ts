// Every container an OpenTelemetry recording arrives in, reduced to OtelItems: OTLP/JSON export
// requests (the Collector's file exporter, one per line), bare ResourceSpans/ResourceLogs, single
// spans and log records as JS SDK objects (Gemini CLI's outfile) or Python `to_json()` dumps, and
// Jaeger's JSON export. A part of the wrong type is reported and the rest still read.

import { isRec, type Rec } from '../shared/text.js';
import type { OtelEvent, OtelItem } from './items.js';
import { anyTime, anyValue, fromNanos, keyValues, keyValuesChars, otelId } from './values.js';

export interface Walk {
  emit(item: OtelItem): void;
  /** A part of the record that is not what its container promises: `where` names it (`resourceSpans[2].scopeSpans`). */
  bad(where: string, what: string): void;
  line: number | null;
}

/** Whether a record is one the walker knows (for detection: no items are built). */
export function containerKind(value: unknown): 'otlp' | 'sdk-span' | 'sdk-log' | 'jaeger' | null {
  if (!isRec(value)) return null;
  // Named so, it is an export request even when the list is of the wrong type (the walk reports that).
  if ('resourceSpans' in value || 'resourceLogs' in value) return 'otlp';
  if (isRec(value.resource) && (Array.isArray(value.scopeSpans) || Array.isArray(value.scopeLogs) || Array.isArray(value.instrumentationLibrarySpans))) return 'otlp';
  if (Array.isArray(value.data) && value.data.some((t) => isRec(t) && Array.isArray(t.spans) && 'traceID' in t)) return 'jaeger';
  if (typeof value.traceID === 'string' && Array.isArray(value.spans)) return 'jaeger';
  if (isRec(value._spanContext) || (isRec(value.context) && 'trace_id' in value.context && 'name' in value)) return 'sdk-span';
  if ('hrTime' in value && ('_body' in value || 'body' in value) && 'attributes' in value) return 'sdk-log';
  return null;
}

export function walk(value: unknown, w: Walk): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => (isRec(v) ? walk(v, w) : w.bad(`[${i}]`, 'not an object')));
    return;
  }
  if (!isRec(value)) return;
  switch (containerKind(value)) {
    case 'otlp':
      if ('resourceSpans' in value || 'resourceLogs' in value) {
        list(value.resourceSpans, 'resourceSpans', w, (r, at) => resourceSpans(r, at, w));
        list(value.resourceLogs, 'resourceLogs', w, (r, at) => resourceLogs(r, at, w));
      } else if ('scopeLogs' in value) resourceLogs(value, 'resourceLogs', w);
      else resourceSpans(value, 'resourceSpans', w);
      return;
    case 'jaeger':
      if (Array.isArray(value.data)) list(value.data, 'data', w, (t, at) => jaegerTrace(t, at, w));
      else jaegerTrace(value, 'trace', w);
      return;
    case 'sdk-span':
      w.emit(sdkSpan(value, w.line));
      return;
    case 'sdk-log':
      w.emit(sdkLog(value, w.line));
      return;
    default:
  }
}

/** Each object of a list; a list that is not one, or a member that is not an object, is reported. */
function list(value: unknown, where: string, w: Walk, each: (r: Rec, at: string) => void): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    w.bad(where, 'not a list');
    return;
  }
  value.forEach((r, i) => (isRec(r) ? each(r, `${where}[${i}]`) : w.bad(`${where}[${i}]`, 'not an object')));
}

function resourceAttrs(r: Rec): Rec {
  const res = r.resource;
  if (!isRec(res)) return keyValues(null);
  return keyValues(res.attributes ?? res._rawAttributes ?? null);
}

function scopeName(s: Rec): string {
  const scope = s.scope ?? s.instrumentationLibrary ?? s.instrumentationScope;
  return isRec(scope) && typeof scope.name === 'string' ? scope.name : '';
}

function resourceSpans(r: Rec, at: string, w: Walk): void {
  const resource = resourceAttrs(r);
  const scopes = r.scopeSpans ?? r.instrumentationLibrarySpans;
  list(scopes, `${at}.scopeSpans`, w, (s, sat) => {
    const scope = scopeName(s);
    list(s.spans, `${sat}.spans`, w, (span) => w.emit(otlpSpan(span, resource, scope, w.line)));
  });
}

function resourceLogs(r: Rec, at: string, w: Walk): void {
  const resource = resourceAttrs(r);
  const scopes = r.scopeLogs ?? r.instrumentationLibraryLogs;
  list(scopes, `${at}.scopeLogs`, w, (s, sat) => {
    const scope = scopeName(s);
    list(s.logRecords, `${sat}.logRecords`, w, (log) => w.emit(otlpLog(log, resource, scope, w.line)));
  });
}

function statusOf(status: unknown, attrs?: Rec): OtelItem['status'] {
  if (attrs && (attrs.error === true || attrs['otel.status_code'] === 'ERROR')) return 'error';
  const code = isRec(status) ? (status.code ?? status.status_code ?? status.statusCode) : status;
  if (code === 2 || code === 'STATUS_CODE_ERROR' || code === 'ERROR' || code === 'StatusCode.ERROR') return 'error';
  if (code === 1 || code === 'STATUS_CODE_OK' || code === 'OK' || code === 'StatusCode.OK') return 'ok';
  return 'unset';
}

function events(list: unknown, time: (e: Rec) => number): OtelEvent[] {
  if (!Array.isArray(list)) return [];
  const out: OtelEvent[] = [];
  for (const e of list) {
    if (!isRec(e)) continue;
    out.push({ name: typeof e.name === 'string' ? e.name : '', time: time(e), attrs: keyValues(e.attributes ?? e.fields ?? null) });
  }
  return out;
}

function otlpSpan(s: Rec, resource: Rec, scope: string, line: number | null): OtelItem {
  const attrs = keyValues(s.attributes ?? null);
  const chars = keyValuesChars;
  return item('span', typeof s.name === 'string' ? s.name : '', {
    traceId: otelId(s.traceId, 32),
    spanId: otelId(s.spanId, 16),
    parentId: otelId(s.parentSpanId, 16),
    start: fromNanos(s.startTimeUnixNano),
    end: fromNanos(s.endTimeUnixNano),
    attrs,
    resource,
    scope,
    body: null,
    events: events(s.events, (e) => fromNanos(e.timeUnixNano)),
    status: statusOf(s.status),
    line,
  }, chars);
}

function otlpLog(l: Rec, resource: Rec, scope: string, line: number | null): OtelItem {
  const attrs = keyValues(l.attributes ?? null);
  const chars = keyValuesChars;
  const body = anyValue(l.body);
  const time = fromNanos(l.timeUnixNano);
  return item('log', logName(attrs, l.eventName, body), {
    traceId: otelId(l.traceId, 32),
    spanId: otelId(l.spanId, 16),
    parentId: null,
    start: Number.isNaN(time) ? eventTime(attrs, l.observedTimeUnixNano) : time,
    end: NaN,
    attrs,
    resource,
    scope,
    body,
    events: [],
    status: 'unset',
    line,
  }, chars, `${String(l.timeUnixNano)}/${String(l.observedTimeUnixNano)}`);
}

function eventTime(attrs: Rec, observed: unknown): number {
  const stamp = attrs['event.timestamp'];
  const t = typeof stamp === 'string' ? Date.parse(stamp) : NaN;
  return Number.isFinite(t) ? t : fromNanos(observed);
}

function logName(attrs: Rec, eventName: unknown, body: unknown): string {
  if (typeof attrs['event.name'] === 'string') return attrs['event.name'];
  if (typeof eventName === 'string' && eventName.length > 0) return eventName;
  return typeof body === 'string' && body.length < 200 ? body : '';
}

/** A JS SDK span object (`_spanContext`, `[s, ns]` times) or a Python `ReadableSpan.to_json()`. */
function sdkSpan(s: Rec, line: number | null): OtelItem {
  const ctx = isRec(s._spanContext) ? s._spanContext : isRec(s.spanContext) ? s.spanContext : isRec(s.context) ? s.context : {};
  const parent = isRec(s.parentSpanContext) ? s.parentSpanContext.spanId : (s.parentSpanId ?? s.parent_id);
  const attrs = keyValues(s.attributes ?? null);
  const chars = keyValuesChars;
  return item('span', typeof s.name === 'string' ? s.name : '', {
    traceId: otelId(ctx.traceId ?? ctx.trace_id, 32),
    spanId: otelId(ctx.spanId ?? ctx.span_id, 16),
    parentId: otelId(parent, 16),
    start: anyTime(s.startTime ?? s.start_time),
    end: anyTime(s.endTime ?? s.end_time),
    attrs,
    resource: isRec(s.resource) ? keyValues(s.resource._rawAttributes ?? s.resource.attributes ?? null) : keyValues(null),
    scope: scopeName(s),
    body: null,
    events: events(s.events, (e) => anyTime(e.time ?? e.timestamp)),
    status: statusOf(s.status),
    line,
  }, chars);
}

function sdkLog(l: Rec, line: number | null): OtelItem {
  const attrs = keyValues(l.attributes ?? null);
  const chars = keyValuesChars;
  const ctx = isRec(l.spanContext) ? l.spanContext : {};
  const body = l._body ?? l.body;
  return item('log', logName(attrs, l.eventName, body), {
    traceId: otelId(ctx.traceId, 32),
    spanId: otelId(ctx.spanId, 16),
    parentId: null,
    start: anyTime(l.hrTime),
    end: NaN,
    attrs,
    resource: isRec(l.resource) ? keyValues(l.resource._rawAttributes ?? l.resource.attributes ?? null) : keyValues(null),
    scope: scopeName(l),
    body,
    events: [],
    status: 'unset',
    line,
  }, chars, `${String(l.hrTime)}/${String(l.hrTimeObserved)}`);
}

function jaegerTrace(t: Rec, at: string, w: Walk): void {
  const processes = isRec(t.processes) ? t.processes : {};
  list(t.spans, `${at}.spans`, w, (s) => {
    const proc = typeof s.processID === 'string' && isRec(processes[s.processID]) ? (processes[s.processID] as Rec) : null;
    const resource = keyValues(proc?.tags ?? null);
    if (proc && typeof proc.serviceName === 'string') resource['service.name'] = proc.serviceName;
    const attrs = keyValues(s.tags ?? null);
    const chars = keyValuesChars;
    const parent = Array.isArray(s.references) ? s.references.find((r) => isRec(r) && r.refType === 'CHILD_OF') : undefined;
    const start = typeof s.startTime === 'number' ? s.startTime / 1000 : NaN;
    const duration = typeof s.duration === 'number' ? s.duration / 1000 : NaN;
    w.emit(
      item('span', typeof s.operationName === 'string' ? s.operationName : '', {
        traceId: otelId(s.traceID, 32),
        spanId: otelId(s.spanID, 16),
        parentId: isRec(parent) ? otelId(parent.spanID, 16) : null,
        start,
        end: start + duration,
        attrs,
        resource,
        scope: typeof attrs['otel.library.name'] === 'string' ? attrs['otel.library.name'] : '',
        body: null,
        events: events(s.logs, (e) => (typeof e.timestamp === 'number' ? e.timestamp / 1000 : NaN)).map(jaegerEvent),
        status: statusOf(attrs['otel.status_code'] ?? null, attrs),
        line: w.line,
      }, chars),
    );
  });
}

/** Jaeger keeps an event's name in its `event` field. */
function jaegerEvent(e: OtelEvent): OtelEvent {
  return e.name === '' && typeof e.attrs.event === 'string' ? { ...e, name: e.attrs.event } : e;
}

/** `chars`: the attributes' string characters (keyValuesChars right after they were read). */
function item(kind: OtelItem['kind'], name: string, rest: Omit<OtelItem, 'kind' | 'name' | 'size' | 'stamp'>, chars: number, stamp = ''): OtelItem {
  const body = typeof rest.body === 'string' ? rest.body.length : 0;
  // Roughly what the record costs to hold: its text, plus a fixed part for the object and its keys.
  return { kind, name, ...rest, stamp, size: 400 + chars + body + rest.events.length * 200 };
}
