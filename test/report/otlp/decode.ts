// Reads what `--format otlp` writes with the OpenTelemetry JS project's own OTLP types: the
// protobufjs root generated from opentelemetry-proto that @opentelemetry/otlp-transformer 0.214
// ships (the last release that ships it). A body is taken through protobuf and back: every field
// must be one the proto declares (an unknown or misspelt one is dropped by fromObject and so
// fails the comparison), every value of the declared type. OTLP/JSON differs from proto3's JSON
// mapping in exactly the ids (hex, not base64), which is converted here and only here.

import { createRequire } from 'node:module';

interface ProtoType {
  fromObject(o: unknown): unknown;
  encode(m: unknown): { finish(): Uint8Array };
  decode(b: Uint8Array): unknown;
  toObject(m: unknown, o: Record<string, unknown>): Record<string, unknown>;
}

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { logs: { v1: { ExportLogsServiceRequest: ProtoType } } } } };
};
const REQUEST = root.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

type Json = Record<string, unknown>;

/** The ids of every log record, turned by `convert` (hex → base64 going in, back coming out). */
function mapIds(request: Json, convert: (s: string) => string): Json {
  const copy = structuredClone(request);
  for (const rl of (copy['resourceLogs'] as Json[] | undefined) ?? []) {
    for (const sl of (rl['scopeLogs'] as Json[] | undefined) ?? []) {
      for (const r of (sl['logRecords'] as Json[] | undefined) ?? []) {
        for (const k of ['traceId', 'spanId']) if (typeof r[k] === 'string') r[k] = convert(r[k]);
      }
    }
  }
  return copy;
}

const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
const base64ToHex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');

/** The request as protobuf decodes it (int64 as decimal strings, enums as numbers, ids hex). */
export function throughProtobuf(request: Json): Json {
  const message = REQUEST.fromObject(mapIds(request, hexToBase64));
  const bytes = REQUEST.encode(message).finish();
  const decoded = REQUEST.toObject(REQUEST.decode(bytes), { longs: String, enums: Number, bytes: String });
  return mapIds(decoded, base64ToHex);
}

/** Each line of a `--format otlp` payload, parsed. */
export function requestsOf(payload: string): Json[] {
  return payload
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
}

export interface DecodedRecord {
  traceId?: string;
  spanId?: string;
  timeUnixNano: string;
  severityNumber: number;
  eventName: string;
  attributes: Record<string, unknown>;
}

function anyValue(v: Json): unknown {
  if ('stringValue' in v) return v['stringValue'];
  if ('boolValue' in v) return v['boolValue'];
  if ('intValue' in v) return Number(v['intValue']);
  if ('doubleValue' in v) return v['doubleValue'];
  if ('arrayValue' in v) return ((v['arrayValue'] as Json)['values'] as Json[] | undefined ?? []).map(anyValue);
  throw new Error(`unexpected AnyValue ${JSON.stringify(v)}`);
}

/** The log records of decoded requests, attributes as a plain map. */
export function recordsOf(requests: readonly Json[]): DecodedRecord[] {
  const out: DecodedRecord[] = [];
  for (const request of requests) {
    for (const rl of request['resourceLogs'] as Json[]) {
      for (const sl of rl['scopeLogs'] as Json[]) {
        for (const r of sl['logRecords'] as Json[]) {
          const attributes: Record<string, unknown> = {};
          for (const kv of r['attributes'] as Json[]) attributes[kv['key'] as string] = anyValue(kv['value'] as Json);
          out.push({ ...(r as unknown as DecodedRecord), attributes });
        }
      }
    }
  }
  return out;
}
