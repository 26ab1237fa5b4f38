// The ledger's findings as OpenTelemetry log records: one `gen_ai.evaluation.result` event per
// entry (GenAI semantic conventions 1.38), in OTLP/JSON ExportLogsServiceRequest bodies. The same
// bodies are the lines of `--format otlp` and the requests `--otlp-endpoint` posts, so what a file
// holds is exactly what a receiver would have got. OTLP/JSON, not proto3's JSON mapping: trace and
// span ids are hex, 64-bit integers decimal strings, enums integers.

import type { EnforceLevel } from '../../vocabulary.js';
import type { EntryTrace, LedgerEntry, LedgerReport, SessionLedger } from '../../ledger/types.js';
import { UsageError } from '../../errors.js';
import { escapeJsonText } from '../../sanitize.js';
import { findingSentence } from '../finding-sentence.js';
import { relativePath } from '../paths.js';
import { whole } from '../options.js';

const EVALUATION_EVENT = 'gen_ai.evaluation.result';

/** Records per request: the OpenTelemetry SDKs' default export batch. */
const MAX_RECORDS_PER_REQUEST = 512;
/** Bytes per request body, well under common receivers' limits (the Collector's HTTP default is 20 MiB). */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** SeverityNumber of the OpenTelemetry log data model; the level is what Enforce would do, as in SARIF. */
const SEVERITY: Record<EnforceLevel, { number: number; text: string }> = {
  none: { number: 9, text: 'INFO' },
  noted: { number: 9, text: 'INFO' },
  steer: { number: 13, text: 'WARN' },
  stop: { number: 17, text: 'ERROR' },
};

type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } };

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface OtlpLogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText: string;
  eventName: string;
  attributes: KeyValue[];
  traceId?: string;
  spanId?: string;
}

export interface OtlpRecordOptions {
  /** loopledger's version, for the resource and the scope. */
  version: string;
  /** When the findings were evaluated, in milliseconds since the epoch (the records' time). */
  evaluatedAt: number;
  /** Carry each entry's excerpts (only when the run was asked for them: `--excerpts`). */
  excerpts: boolean;
  /** Base of the relative transcript paths. */
  cwd?: string;
  /** A session whole, where `report.sessions` holds thin ones (ReportOptions.wholeSession). */
  wholeSession?: (s: SessionLedger) => SessionLedger;
}

/** The last second whose nanoseconds fit OTLP's `timeUnixNano`, a uint64 (2^64 - 1 ns, in the year 2554). */
const LAST_EPOCH_SECOND = 18_446_744_073;

/**
 * The evaluation time of a run: SOURCE_DATE_EPOCH (seconds, the reproducible-builds convention)
 * when set, so the same ledger can give the same bytes; otherwise now. A value that is not a whole
 * number of seconds OTLP can carry is a usage error: the convention asks a malformed value to fail
 * the build, and a silent fallback to now would make output the user pinned differ run to run.
 */
export function evaluationTime(env: Readonly<Record<string, string | undefined>>, now: () => number = Date.now): number {
  const epoch = env['SOURCE_DATE_EPOCH']?.trim();
  // Set but empty is unset (as in `SOURCE_DATE_EPOCH= make`).
  if (epoch === undefined || epoch === '') return now();
  if (!/^\d+$/.test(epoch) || Number(epoch) > LAST_EPOCH_SECOND) {
    throw new UsageError(
      `SOURCE_DATE_EPOCH=${JSON.stringify(env['SOURCE_DATE_EPOCH'])} is not a whole number of seconds from 0 to ${LAST_EPOCH_SECOND} ` +
        '(the records\' timeUnixNano is a uint64 of nanoseconds): set it as `date +%s` prints, or unset it',
    );
  }
  return Number(epoch) * 1000;
}

// OTLP strings are UTF-8: a lone surrogate (a hostile transcript's id) would not survive a receiver.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const str = (key: string, v: string): KeyValue => ({ key, value: { stringValue: v.replace(LONE_SURROGATE, '\uFFFD') } });
const int = (key: string, v: number): KeyValue => ({ key, value: { intValue: String(Math.trunc(v)) } });
const bool = (key: string, v: boolean): KeyValue => ({ key, value: { boolValue: v } });
const double = (key: string, v: number): KeyValue => ({ key, value: { doubleValue: v } });

/** Milliseconds as OTLP's nanoseconds, a decimal string (exact: no float past 2^53). */
function nanos(ms: number): string {
  const whole = Math.max(0, Math.trunc(ms));
  return whole === 0 ? '0' : `${whole}000000`;
}

const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;

/**
 * The ids to link a record to, or null. OTLP wants 16 and 8 bytes, not all zero; a ledger read
 * back from a file (merge) may carry anything, and a wrong id would link to no span or a wrong one.
 */
function validTrace(t: EntryTrace | undefined): { traceId: string; spanId: string } | null {
  if (t === undefined || t === null || typeof t !== 'object') return null;
  const traceId = typeof t.trace_id === 'string' ? t.trace_id.toLowerCase() : '';
  const spanId = typeof t.span_id === 'string' ? t.span_id.toLowerCase() : '';
  if (!HEX_TRACE.test(traceId) || !HEX_SPAN.test(spanId)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId };
}

/** The record of one entry: the convention's attributes first, loopledger's own after them. */
function logRecord(s: SessionLedger, e: LedgerEntry, o: OtlpRecordOptions): OtlpLogRecord {
  const attributes: KeyValue[] = [str('gen_ai.evaluation.name', e.kind)];
  // Conditionally required "if applicable": a count crossing a threshold (tool batches) has no score.
  if (e.confidence !== null && Number.isFinite(e.confidence)) attributes.push(double('gen_ai.evaluation.score.value', e.confidence));
  attributes.push(
    str('gen_ai.evaluation.score.label', e.intervention.enforce),
    str('gen_ai.evaluation.explanation', findingSentence(s, e)),
    str('gen_ai.conversation.id', s.id),
    str('session.id', s.id),
    str('loopledger.detector', e.detector),
    str('loopledger.kind', e.kind),
    int('loopledger.turn', e.turn),
    int('loopledger.round', e.round),
  );
  if (e.line !== null) attributes.push(int('loopledger.line', e.line));
  attributes.push(
    str('loopledger.intervention.off', e.intervention.off),
    str('loopledger.intervention.telemetry', e.intervention.telemetry),
    str('loopledger.intervention.enforce', e.intervention.enforce),
    bool('loopledger.after_stop', e.after_stop),
  );
  if (e.strike) attributes.push(int('loopledger.strike.count', e.strike.count), int('loopledger.strike.threshold', e.strike.threshold));
  if (e.shape !== undefined) attributes.push(str('loopledger.shape', e.shape));
  // One record for a run of rounds with the same finding (docs/json.md "Runs").
  if (e.run) attributes.push(int('loopledger.run.last_round', e.run.last_round), int('loopledger.run.count', e.run.count));
  if (e.finalization_reason !== undefined) attributes.push(str('loopledger.finalization_reason', e.finalization_reason));
  if (e.round_usage) {
    if (e.round_usage.tokens !== null) attributes.push(int('loopledger.round.tokens', e.round_usage.tokens));
    if (e.round_usage.usd !== null) attributes.push(double('loopledger.round.usd', e.round_usage.usd));
  }
  attributes.push(str('loopledger.session.path', relativePath(s.path, o.cwd)), str('loopledger.session.format', s.format));
  if (s.parent !== null) attributes.push(str('loopledger.session.parent', s.parent));
  if (s.model !== null) attributes.push(str('loopledger.session.model', s.model));
  // The excerpts other formats show with --excerpts, and never more: the ledger holds no other transcript text.
  if (o.excerpts && e.excerpts !== undefined && e.excerpts.length > 0) {
    attributes.push({ key: 'loopledger.excerpts', value: { arrayValue: { values: e.excerpts.map((x) => ({ stringValue: x })) } } });
  }
  const time = nanos(o.evaluatedAt);
  const severity = SEVERITY[e.intervention.enforce] ?? SEVERITY.none;
  const record: OtlpLogRecord = {
    timeUnixNano: time,
    observedTimeUnixNano: time,
    severityNumber: severity.number,
    severityText: severity.text,
    eventName: EVALUATION_EVENT,
    attributes,
  };
  // The convention: an evaluation SHOULD be parented to the span of the operation it judged.
  const link = validTrace(e.trace);
  if (link) {
    record.traceId = link.traceId;
    record.spanId = link.spanId;
  }
  return record;
}

/** One ExportLogsServiceRequest around records already serialized: one resource, one scope. */
function requestBody(records: readonly string[], version: string): string {
  const resource = { attributes: [str('service.name', 'loopledger'), str('service.version', version)] };
  const scope = { name: 'loopledger', version };
  const head = escapeJsonText(`{"resourceLogs":[{"resource":${JSON.stringify(resource)},"scopeLogs":[{"scope":${JSON.stringify(scope)},"logRecords":[`);
  return `${head}${records.join(',')}]}]}]}`;
}

/** Bytes a body adds beyond its records (the envelope), measured once per run. */
function envelopeBytes(version: string): number {
  return Buffer.byteLength(requestBody([], version));
}

export interface OtlpRequest {
  /** The compact JSON body. */
  body: string;
  records: number;
}

/**
 * The ledger's records in request bodies of at most MAX_RECORDS_PER_REQUEST records and
 * MAX_REQUEST_BYTES bytes, in ledger order, made as they are consumed (one body in memory at a
 * time). A record that alone exceeds the byte cap (only a session id or path of megabytes could)
 * goes in a body of its own; the receiver may refuse it. No findings, no body.
 */
export function* otlpRequests(report: LedgerReport, o: OtlpRecordOptions, maxRecords = MAX_RECORDS_PER_REQUEST, maxBytes = MAX_REQUEST_BYTES): Generator<OtlpRequest> {
  const envelope = envelopeBytes(o.version);
  let batch: string[] = [];
  let bytes = envelope;
  for (const listed of report.sessions) {
    if (listed.entries.length === 0) continue;
    const s = whole(o, listed);
    for (const e of s.entries) {
      // Escaped before it is measured: the \uXXXX escapes are what the body's bytes are.
      const json = escapeJsonText(JSON.stringify(logRecord(s, e, o)));
      const size = Buffer.byteLength(json);
      // One byte per comma between records.
      if (batch.length > 0 && (batch.length >= maxRecords || bytes + 1 + size > maxBytes)) {
        yield { body: requestBody(batch, o.version), records: batch.length };
        batch = [];
        bytes = envelope;
      }
      bytes += size + (batch.length > 0 ? 1 : 0);
      batch.push(json);
    }
  }
  if (batch.length > 0) yield { body: requestBody(batch, o.version), records: batch.length };
}
