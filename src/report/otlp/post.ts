// `--otlp-endpoint`: the `--format otlp` request bodies posted over OTLP/HTTP JSON with Node's own
// fetch, one request at a time (one body in memory). The only report module that does I/O, and
// the CLI's single call into it. Bounded: each attempt has the timeout, a request is retried only
// on the answers the OTLP specification calls retryable (429, 502, 503, 504), at most MAX_RETRIES
// times, honouring Retry-After up to a cap; a reply is read at most MAX_REPLY_BYTES. A failure is
// one line that names the URL redacted and never a header.

import { gzipSync } from 'node:zlib';
import { LoopledgerError, EXIT_USAGE } from '../../errors.js';
import type { LedgerReport } from '../../ledger/types.js';
import { redactUrls } from '../../config/redact.js';
import { sanitize } from '../../sanitize.js';
import { VERSION } from '../../version.js';
import { plural } from '../text.js';
import { otlpTarget, type OtlpTarget } from './endpoint.js';
import { evaluationTime, otlpRequests } from './records.js';

/** Retries of one request after its first attempt. */
const MAX_RETRIES = 3;
/** A reply (an error's status message, a partial success) is read no further. */
const MAX_REPLY_BYTES = 64 * 1024;
/** The first wait before a retry, doubled each time, when the receiver does not say (Retry-After). */
const BACKOFF_MS = 250;
/** No wait longer than this, whatever Retry-After asks: the run must end. */
const MAX_WAIT_MS = 10_000;
const RETRYABLE = new Set([429, 502, 503, 504]);

/** The export failed: after the payload was written, the run exits 2 with this one line. */
class OtlpExportError extends LoopledgerError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'OtlpExportError';
  }
}

interface PostOptions {
  evaluatedAt: number;
  excerpts: boolean;
  cwd?: string;
  /** Tests shorten the waits; the CLI uses the defaults. */
  backoffMs?: number;
  maxWaitMs?: number;
  maxRecords?: number;
  maxBytes?: number;
}

export interface PostResult {
  url: string;
  records: number;
  requests: number;
  /** Records the receiver said it rejected (a partial success). */
  rejected: number;
  /** The receiver's messages about them, at most one per request. */
  messages: string[];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds or an HTTP date; null when absent or unreadable. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const t = header.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const at = Date.parse(t);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_REPLY_BYTES) {
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_REPLY_BYTES);
}

function parsed(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A receiver's own words, short and on one line (an OTLP error body is a google.rpc.Status with `message`). */
function receiverSays(text: string): string {
  const status = parsed(text);
  const message = typeof status?.['message'] === 'string' ? status['message'] : '';
  const oneLine = sanitize(redactUrls(message.replace(/\s+/g, ' ').trim()));
  return oneLine === '' ? '' : `: ${oneLine.length > 160 ? `${oneLine.slice(0, 159)}…` : oneLine}`;
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS)',
  UND_ERR_SOCKET: 'connection closed',
};

function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (typeof cause?.code === 'string') return NETWORK[cause.code] ? `${NETWORK[cause.code]} (${cause.code})` : cause.code;
  const message = typeof cause?.message === 'string' ? cause.message : (e as Error)?.message;
  return sanitize(redactUrls(String(message ?? 'network error'))).replace(/\s+/g, ' ');
}

function isTimeout(e: unknown): boolean {
  const name = (e as { name?: unknown })?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/** One request, with its retries. Resolves to the partial-success count; throws OtlpExportError otherwise. */
async function postOne(target: OtlpTarget, body: string, o: PostOptions, done: () => string): Promise<{ rejected: number; message: string | null }> {
  const where = `${redactUrls(target.url)} (${target.source})`;
  const headers: Record<string, string> = {
    ...target.headers,
    'content-type': 'application/json',
    'user-agent': `loopledger/${VERSION}`,
  };
  const bytes = target.gzip ? gzipSync(body) : Buffer.from(body);
  if (target.gzip) headers['content-encoding'] = 'gzip';
  for (let attempt = 0; ; attempt += 1) {
    const signal = AbortSignal.timeout(target.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(target.url, {
        method: 'POST',
        headers,
        body: bytes,
        signal,
        // A redirect would take the findings (and the headers) somewhere not configured.
        redirect: 'error',
      });
      text = await readCapped(response);
    } catch (e) {
      if (signal.aborted || isTimeout(e)) throw new OtlpExportError(`posting to ${where}: no answer within ${target.timeoutMs} ms; ${done()}`);
      throw new OtlpExportError(`posting to ${where}: ${networkReason(e)}; ${done()}`);
    }
    if (response.status >= 200 && response.status < 300) {
      const partial = parsed(text)?.['partialSuccess'] as Record<string, unknown> | undefined;
      const rejected = Number(partial?.['rejectedLogRecords'] ?? 0);
      const message = typeof partial?.['errorMessage'] === 'string' && partial['errorMessage'] !== '' ? receiverSays(JSON.stringify({ message: partial['errorMessage'] })).slice(2) : null;
      return { rejected: Number.isSafeInteger(rejected) && rejected > 0 ? rejected : 0, message };
    }
    const status = `HTTP ${response.status}${receiverSays(text)}`;
    if (!RETRYABLE.has(response.status)) throw new OtlpExportError(`posting to ${where}: ${status}; ${done()}`);
    if (attempt >= MAX_RETRIES) throw new OtlpExportError(`posting to ${where}: ${status} after ${plural(attempt + 1, 'attempt')}; ${done()}`);
    const asked = retryAfterMs(response.headers.get('retry-after'), Date.now());
    await sleep(Math.min(asked ?? (o.backoffMs ?? BACKOFF_MS) * 2 ** attempt, o.maxWaitMs ?? MAX_WAIT_MS));
  }
}

/** Posts every finding of `report` to `target`, request after request; stops at the first that fails. */
async function postOtlp(report: LedgerReport, target: OtlpTarget, o: PostOptions): Promise<PostResult> {
  const total = report.sessions.reduce((n, s) => n + s.entries.length, 0);
  const result: PostResult = { url: redactUrls(target.url), records: 0, requests: 0, rejected: 0, messages: [] };
  const done = () => `${result.records} of ${plural(total, 'finding')} posted`;
  const options = { version: report.tool.version, evaluatedAt: o.evaluatedAt, excerpts: o.excerpts, cwd: o.cwd };
  for (const request of otlpRequests(report, options, o.maxRecords, o.maxBytes)) {
    const answer = await postOne(target, request.body, o, done);
    result.requests += 1;
    result.records += request.records;
    result.rejected += answer.rejected;
    if (answer.message !== null) result.messages.push(answer.message);
  }
  return result;
}

export interface ExportIO {
  env: Readonly<Record<string, string | undefined>>;
  /** One diagnostic line (stderr). */
  warn(message: string): void;
  quiet?: boolean;
  excerpts?: boolean;
  cwd?: string;
}

/**
 * What `analyze --otlp-endpoint [URL]` runs after writing its payload: resolve the target, post,
 * say what was posted on stderr. Throws OtlpExportError (exit 2) when the findings did not all arrive.
 */
export async function exportFindings(report: LedgerReport, flag: string | true, io: ExportIO): Promise<PostResult> {
  const target = otlpTarget(flag, io.env);
  for (const w of target.warnings) io.warn(w);
  const result = await postOtlp(report, target, { evaluatedAt: evaluationTime(io.env), excerpts: io.excerpts ?? false, cwd: io.cwd });
  if (result.rejected > 0) {
    const why = result.messages.length > 0 ? ` (${result.messages[0]})` : '';
    io.warn(`posting to ${result.url} (${target.source}): the receiver rejected ${result.rejected} of ${plural(result.records, 'finding')}${why}`);
  } else if (!io.quiet) {
    io.warn(`posted ${plural(result.records, 'finding')} to ${result.url} in ${plural(result.requests, 'request')}`);
  }
  return result;
}
