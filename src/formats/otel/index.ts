// Format `otel`: OpenTelemetry recordings of agent runs. Containers (containers.ts) become spans and
// log records, grouped into sessions (sessions.ts), and each session is read by the producer that
// wrote it (producers.ts): an agent's own telemetry or the GenAI / OpenInference conventions.

import { isRec } from '../shared/text.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from '../types.js';
import { containerKind, walk } from './containers.js';
import { SessionGroups } from './sessions.js';

function describe(value: Record<string, unknown>): string {
  const keys = Object.keys(value).slice(0, 4).map((k) => JSON.stringify(k.slice(0, 40)));
  return keys.length > 0 ? `keys ${keys.join(', ')}` : 'no keys';
}

class OtelParser implements RecordParser {
  private readonly groups: SessionGroups;

  constructor(private readonly ctx: AdapterContext) {
    this.groups = new SessionGroups(ctx.builder, ctx.path, (reason) => ctx.skip(null, reason), (kind) => ctx.ignore?.(kind));
  }

  push(value: unknown, line: number | null): void {
    if (!isRec(value) && !Array.isArray(value)) return;
    if (isRec(value) && (Array.isArray(value.resourceMetrics) || Array.isArray(value.scopeMetrics))) {
      this.ctx.ignore?.('metrics');
      return;
    }
    const kind = isRec(value) ? containerKind(value) : 'list';
    if (kind === null) {
      this.ctx.skip(line, `not an OpenTelemetry record: an object with ${describe(value as Record<string, unknown>)}`);
      return;
    }
    let bad = 0;
    walk(value, {
      line,
      emit: (item) => this.groups.add(item),
      bad: (where, what) => {
        // One record can hold thousands of parts: the first few are named, the rest counted in one.
        bad += 1;
        if (bad <= 3) this.ctx.skip(line, `otel: ${where}: ${what}, left out`);
      },
    });
    if (bad > 3) this.ctx.skip(line, `otel: ${bad - 3} more parts of this record left out`);
  }

  end(): void {
    this.groups.end();
  }
}

function score(value: unknown): number {
  const kind = containerKind(value);
  if (kind === 'otlp' || kind === 'jaeger') return 0.95;
  if (kind === 'sdk-span' || kind === 'sdk-log') return 0.9;
  return 0;
}

export const otelAdapter: FormatAdapter = {
  name: 'otel',
  description:
    'OpenTelemetry recordings of agent runs: OTLP/JSON as the Collector file exporter writes it (one ExportTraceServiceRequest or ExportLogsServiceRequest per line), SDK dumps (pretty-printed objects one after another: JS SDK span and log objects, Python to_json), ids in hex or base64, numbers and booleans as strings, enum names, and Jaeger JSON export. ' +
    'Sessions by gen_ai.conversation.id, session.id or conversation.id, else by trace; spans in any order; a record exported twice (or a start copy without an end) read once; the logs and traces of one run are joined when they are one input (one file, or the files concatenated on stdin). Each session names its producer (listed below) and what it did not record',
  detection: 'OTLP resourceSpans/resourceLogs lines, a Jaeger document (data[].spans with traceID), JS SDK span (_spanContext) and log (hrTime with a body) objects, Python span dumps (context.trace_id)',
  detect(probe: Probe): number {
    if (probe.mode === 'document') {
      const v = probe.value;
      return Array.isArray(v) ? (v.length > 0 ? score(v[0]) : 0) : score(v);
    }
    const records = probe.records;
    if (records.length === 0) return 0;
    const known = records.filter((r) => score(r) > 0 || (isRec(r) && Array.isArray(r.resourceMetrics))).length;
    // Metrics requests alone are telemetry but no conversation; they only count beside spans or logs.
    const best = Math.max(...records.map(score));
    return known / records.length >= 0.5 ? best : 0;
  },
  open: (ctx) => new OtelParser(ctx),
};
