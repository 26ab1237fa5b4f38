// Where `--otlp-endpoint` posts, with which headers and timeout: the flag, then the OpenTelemetry
// exporter variables with the specification's precedence (the logs-specific variable over the
// general one, the general endpoint with `v1/logs` appended, the signal-specific one used as is).
// Pure: the environment comes in, the target and its warnings go out. Nothing here prints a
// header value, and a URL only ever leaves through redactUrls.

import { UsageError } from '../../errors.js';
import { redactUrls } from '../../config/redact.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The specification's default for OTLP/HTTP. */
const DEFAULT_ENDPOINT = 'http://localhost:4318/v1/logs';
/** The specification's default export timeout. */
const DEFAULT_TIMEOUT_MS = 10_000;
const LOGS_PATH = 'v1/logs';

export interface OtlpTarget {
  url: string;
  /** Where the URL came from (the flag or a variable), for messages. */
  source: string;
  headers: Record<string, string>;
  timeoutMs: number;
  gzip: boolean;
  /** Variables that were set but could not be used: one line each, no values. */
  warnings: string[];
}

/** Signal-specific first, as the specification orders them; blank counts as unset. */
function pick(env: Env, logs: string, general: string): { name: string; value: string } | null {
  for (const name of [logs, general]) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { name, value: value.trim() };
  }
  return null;
}

function httpUrl(text: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source}: ${redactUrls(text)} is no URL (expected http://host:4318 or https://…/v1/logs)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source}: ${redactUrls(text)} is no http(s) URL (loopledger posts OTLP/HTTP JSON)`);
  }
  return url;
}

/** A base URL with `v1/logs` appended to its path, as the specification builds the logs URL. */
function withLogsPath(url: URL): string {
  const out = new URL(url.href);
  out.pathname = `${out.pathname.replace(/\/+$/, '')}/${LOGS_PATH}`;
  return out.href;
}

/** The flag's value: a URL that already ends in /v1/logs is the logs URL as given; any other is a base. */
export function checkEndpointFlag(value: string): string {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) {
    // Most likely a path read as the flag's optional value: say how to write both.
    throw new UsageError(`--otlp-endpoint: ${value} is no URL; write --otlp-endpoint=URL, or put the paths before a bare --otlp-endpoint`);
  }
  httpUrl(value, '--otlp-endpoint');
  return value;
}

/**
 * Credentials written in the URL (`https://user:token@host`) become a Basic authorization header,
 * since fetch refuses a URL that carries them; a header set in the variables wins.
 */
function moveUserinfo(href: string, headers: Record<string, string>): string {
  const url = new URL(href);
  if (url.username === '' && url.password === '') return href;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  headers['authorization'] ??= `Basic ${Buffer.from(`${decode(url.username)}:${decode(url.password)}`).toString('base64')}`;
  url.username = '';
  url.password = '';
  return url.href;
}

/**
 * `W3C baggage`-like `key1=value1,key2=value2`, values percent-decoded (the specification's
 * format). An entry that is not `key=value` or whose key is no header name is left out with a
 * warning that names its position, never its text (a header value is usually a credential).
 */
function parseHeaders(raw: string, name: string, warnings: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  raw.split(',').forEach((item, i) => {
    if (item.trim() === '') return;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? '' : item.slice(0, eq)).trim().toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key)) {
      warnings.push(`${name}: entry ${i + 1} is no key=value header; left out`);
      return;
    }
    let value = item.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // Not percent-encoded after all: the text as written.
    }
    if (/[\r\n\0]/.test(value)) {
      warnings.push(`${name}: the value of ${key} holds a line break; left out`);
      return;
    }
    out[key] = value;
  });
  return out;
}

function parseTimeout(env: Env, warnings: string[]): number {
  const t = pick(env, 'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT');
  if (t === null) return DEFAULT_TIMEOUT_MS;
  // Milliseconds, as the specification gives them; an unusable value falls back to the default, with a word.
  if (/^\d{1,9}$/.test(t.value) && Number(t.value) > 0) return Number(t.value);
  warnings.push(`${t.name}=${t.value} is no positive number of milliseconds; ${DEFAULT_TIMEOUT_MS} ms is used`);
  return DEFAULT_TIMEOUT_MS;
}

/**
 * The target of `--otlp-endpoint` (`true`: given without a URL). The flag's URL wins over the
 * variables (the command line is the more specific setting, as `--set` wins over `--config`).
 */
export function otlpTarget(flag: string | true, env: Env): OtlpTarget {
  const warnings: string[] = [];
  let url: string;
  let source: string;
  if (typeof flag === 'string') {
    const parsed = httpUrl(flag, '--otlp-endpoint');
    url = /\/v1\/logs\/?$/.test(parsed.pathname) ? parsed.href : withLogsPath(parsed);
    source = '--otlp-endpoint';
  } else {
    const logs = env['OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'];
    const general = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    if (logs !== undefined && logs.trim() !== '') {
      url = httpUrl(logs.trim(), 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT').href;
      source = 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT';
    } else if (general !== undefined && general.trim() !== '') {
      url = withLogsPath(httpUrl(general.trim(), 'OTEL_EXPORTER_OTLP_ENDPOINT'));
      source = 'OTEL_EXPORTER_OTLP_ENDPOINT';
    } else {
      url = DEFAULT_ENDPOINT;
      source = 'the default endpoint';
    }
  }

  // The general headers, then the logs-specific ones over them key by key (as the JS and Go SDKs merge them).
  const headers: Record<string, string> = {};
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_LOGS_HEADERS']) {
    const raw = env[name];
    if (raw !== undefined && raw.trim() !== '') Object.assign(headers, parseHeaders(raw, name, warnings));
  }

  const protocol = pick(env, 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL');
  if (protocol !== null && protocol.value !== 'http/json') {
    warnings.push(`${protocol.name}=${protocol.value}: loopledger posts http/json only (a Collector's OTLP/HTTP receiver, port 4318, takes it)`);
  }
  const compression = pick(env, 'OTEL_EXPORTER_OTLP_LOGS_COMPRESSION', 'OTEL_EXPORTER_OTLP_COMPRESSION');
  if (compression !== null && compression.value !== 'gzip' && compression.value !== 'none') {
    warnings.push(`${compression.name}=${compression.value} is neither gzip nor none; the bodies go uncompressed`);
  }
  url = moveUserinfo(url, headers);
  return { url, source, headers, timeoutMs: parseTimeout(env, warnings), gzip: compression?.value === 'gzip', warnings };
}
