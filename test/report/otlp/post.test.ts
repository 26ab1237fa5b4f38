// `analyze --otlp-endpoint` against a real OTLP/HTTP receiver on 127.0.0.1, through the built
// binary: where it posts (the flag, then OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as given, then
// OTEL_EXPORTER_OTLP_ENDPOINT with v1/logs appended), which headers and timeout it takes, which
// answers it retries (429, 502, 503, 504 only, at most 3 times), and that a failure is one line,
// exit 2, with no credential in it. Issue 32: "`--otlp-endpoint URL` posts them (OTLP/HTTP JSON,
// with the usual `OTEL_EXPORTER_OTLP_*` variables honoured; bounded, with a timeout …)".

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, scratch } from '../../cli/helpers.js';
import { recordsOf, requestsOf, throughProtobuf } from './decode.js';

const TRANSCRIPT = 'fixtures/claude-code/looping-test-fix.jsonl';
/** Its findings, as `--format json` counts them (3 entries: noted, stop, after the stop). */
const FINDINGS = 3;
const EPOCH = { SOURCE_DATE_EPOCH: '1700000000' };
/** Every OTEL_ variable the parent may have, removed so only the test's own count. */
const CLEAN: Record<string, undefined> = Object.fromEntries(Object.keys(process.env).filter((k) => k.startsWith('OTEL_')).map((k) => [k, undefined]));

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

interface Receiver {
  base: string;
  received: Received[];
  close(): Promise<void>;
}

let receiver: Receiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

async function receive(answer: (n: number, r: Received) => Answer = () => ({ status: 200, body: '{}' })): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      received.push(r);
      const a = answer(received.length, r);
      if (a === 'hang') return;
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  receiver = {
    base: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

const run = (args: string[], env: Record<string, string | undefined> = {}) => runCli([TRANSCRIPT, ...args], { env: { ...CLEAN, ...EPOCH, ...env } });

beforeAll(() => ensureBuilt(), 120_000);

describe('--otlp-endpoint: what arrives', () => {
  it('posts the --format otlp line itself to URL/v1/logs: one request, every finding, decodable by the OTLP protobuf types', async () => {
    const r = await receive();
    const out = await run(['--otlp-endpoint', r.base, '--no-color']);
    expect(out.stderr).toContain(`posted ${FINDINGS} findings to ${r.base}/v1/logs in 1 request`);
    expect(out.code).toBe(0);
    // The payload is still the table: posting is beside the format, not instead of it.
    expect(out.stdout).toContain('repeated_batch');
    expect(r.received).toHaveLength(1);
    const [req] = r.received;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe('/v1/logs');
    expect(req!.headers['content-type']).toBe('application/json');
    const file = await run(['--format', 'otlp']);
    expect(req!.body).toBe(file.stdout.trimEnd());
    const [request] = requestsOf(req!.body);
    expect(throughProtobuf(request!)).toEqual(request);
    const records = recordsOf([request!]);
    expect(records).toHaveLength(FINDINGS);
    expect(records.map((x) => x.attributes['gen_ai.evaluation.score.label'])).toEqual(['noted', 'stop', 'none']);
  }, 30_000);

  it('a URL already ending in /v1/logs is used as given; a base with a path gets v1/logs appended', async () => {
    const r = await receive();
    await run(['--otlp-endpoint', `${r.base}/custom/v1/logs`, '--quiet']);
    await run([`--otlp-endpoint=${r.base}/collector/`, '--quiet']);
    expect(r.received.map((x) => x.url)).toEqual(['/custom/v1/logs', '/collector/v1/logs']);
  }, 30_000);

  it('past 512 findings the records go in several requests, in order, each of at most 512 records and 1 MiB', async () => {
    // One session whose same failing call repeats 400 times: findings on nearly every round. The
    // user asks again every 7 rounds, so no stretch is long enough to fold into a run (ledger/runs.ts).
    const dir = scratch('loopledger-otlp-');
    const lines = [JSON.stringify({ type: 'session', schema: 'loopledger-canonical/1', id: 'many', model: 'gpt-4o' }), JSON.stringify({ type: 'user', text: 'Fix it.' })];
    for (let i = 0; i < 400; i += 1) {
      if (i > 0 && i % 7 === 0) lines.push(JSON.stringify({ type: 'user', text: 'Still failing, fix it.' }));
      lines.push(JSON.stringify({ type: 'assistant', text: '', tool_calls: [{ id: `c${i}`, name: 'run_tests', arguments: { path: 'tests/' } }] }));
      lines.push(JSON.stringify({ type: 'tool_result', id: `c${i}`, content: 'FAIL tests/date.test.ts', is_error: true }));
    }
    const file = dir.write('many.jsonl', lines.join('\n') + '\n');
    try {
      const r = await receive();
      const env = { ...CLEAN, ...EPOCH };
      const out = await runCli([file, '--otlp-endpoint', r.base, '--format', 'json'], { env });
      expect(out.code).toBe(0);
      const entries = (JSON.parse(out.stdout) as { sessions: { entries: unknown[] }[] }).sessions[0]!.entries.length;
      expect(entries).toBeGreaterThan(512);
      const sizes = r.received.map((x) => recordsOf(requestsOf(x.body)).length);
      expect(sizes).toEqual([512, entries - 512]);
      for (const x of r.received) expect(Buffer.byteLength(x.body)).toBeLessThanOrEqual(1024 * 1024);
      const rounds = r.received.flatMap((x) => recordsOf(requestsOf(x.body)).map((rec) => rec.attributes['loopledger.round'] as number));
      expect(rounds).toEqual([...rounds].sort((a, b) => a - b));
      // The file format is the same requests, one per line.
      const otlp = await runCli([file, '--format', 'otlp'], { env });
      expect(otlp.stdout).toBe(r.received.map((x) => `${x.body}\n`).join(''));
      expect(out.stderr).toContain(`posted ${entries} findings to ${r.base}/v1/logs in 2 requests`);
    } finally {
      dir.cleanup();
    }
  }, 60_000);

  it('OTEL_EXPORTER_OTLP_COMPRESSION=gzip: the same body, gzipped, with content-encoding', async () => {
    const r = await receive();
    const out = await run(['--otlp-endpoint', r.base, '--quiet'], { OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' });
    expect(out.code).toBe(0);
    expect(r.received[0]!.headers['content-encoding']).toBe('gzip');
    expect(recordsOf(requestsOf(r.received[0]!.body))).toHaveLength(FINDINGS);
  }, 30_000);
});

describe('--otlp-endpoint: the OTEL_EXPORTER_OTLP_* variables and their precedence', () => {
  it('bare flag: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as given wins over OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const r = await receive();
    const out = await run(['--otlp-endpoint', '--quiet'], {
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${r.base}/signal/logs`,
      OTEL_EXPORTER_OTLP_ENDPOINT: `${r.base}/general`,
    });
    expect(out.code).toBe(0);
    expect(r.received.map((x) => x.url)).toEqual(['/signal/logs']);
  }, 30_000);

  it('bare flag: OTEL_EXPORTER_OTLP_ENDPOINT is a base, v1/logs appended to its path', async () => {
    const r = await receive();
    await run(['--otlp-endpoint'], { OTEL_EXPORTER_OTLP_ENDPOINT: `${r.base}/general` });
    expect(r.received.map((x) => x.url)).toEqual(['/general/v1/logs']);
  }, 30_000);

  it('the flag\'s URL wins over both variables', async () => {
    const r = await receive();
    await run(['--otlp-endpoint', `${r.base}/flag`], {
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://127.0.0.1:1/never',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1/never',
    });
    expect(r.received.map((x) => x.url)).toEqual(['/flag/v1/logs']);
  }, 30_000);

  it('headers: OTEL_EXPORTER_OTLP_HEADERS, with OTEL_EXPORTER_OTLP_LOGS_HEADERS over it key by key, percent-decoded; a bad entry is left out, its text never printed', async () => {
    const r = await receive();
    const out = await run(['--otlp-endpoint', r.base], {
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20general-s3cret,x-tenant=acme,brokenpairs3cret',
      OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'authorization=Bearer%20logs-s3cret',
    });
    expect(out.code).toBe(0);
    const h = r.received[0]!.headers;
    expect(h['authorization']).toBe('Bearer logs-s3cret');
    expect(h['x-tenant']).toBe('acme');
    expect(out.stderr).toContain('OTEL_EXPORTER_OTLP_HEADERS: entry 3 is no key=value header; left out');
    expect(out.stdout + out.stderr).not.toMatch(/s3cret/);
  }, 30_000);

  it('credentials in the URL go as a Basic authorization header and are never printed', async () => {
    const r = await receive(() => ({ status: 401, body: '{"code":16,"message":"bad token"}' }));
    const url = r.base.replace('http://', 'http://ana:pa55word@') + '/?key=topsecret';
    const out = await run(['--otlp-endpoint', url]);
    expect(r.received[0]!.headers['authorization']).toBe(`Basic ${Buffer.from('ana:pa55word').toString('base64')}`);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('HTTP 401: bad token');
    expect(out.stdout + out.stderr).not.toMatch(/pa55word|topsecret|ana:/);
  }, 30_000);

  it('OTEL_EXPORTER_OTLP_LOGS_TIMEOUT over OTEL_EXPORTER_OTLP_TIMEOUT: a receiver that never answers ends the run in that time, exit 2, one line', async () => {
    const r = await receive(() => 'hang');
    const started = Date.now();
    // 2 s, not less: at load 12 a 400 ms budget ran out before the request reached this process's receiver.
    const out = await run(['--otlp-endpoint', r.base], { OTEL_EXPORTER_OTLP_TIMEOUT: '60000', OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '2000' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(out.code).toBe(2);
    const lines = out.stderr.trim().split('\n').filter((l) => l.includes('posting to'));
    expect(lines).toEqual([`loopledger: posting to ${r.base}/v1/logs (--otlp-endpoint): no answer within 2000 ms; 0 of ${FINDINGS} findings posted`]);
    // A timeout is not retried.
    expect(r.received).toHaveLength(1);
  }, 30_000);

  it('an unusable timeout or protocol is said in one line and the default used', async () => {
    const r = await receive();
    const out = await run(['--otlp-endpoint', r.base, '--quiet'], { OTEL_EXPORTER_OTLP_TIMEOUT: 'soon', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('OTEL_EXPORTER_OTLP_TIMEOUT=soon is no positive number of milliseconds; 10000 ms is used');
    expect(out.stderr).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc: loopledger posts http/json only');
    expect(r.received).toHaveLength(1);
  }, 30_000);
});

describe('--otlp-endpoint: answers, retries and exit codes', () => {
  it('503 and 429 with Retry-After are retried: the third attempt lands, exit 0', async () => {
    const r = await receive((n) => (n === 1 ? { status: 503, headers: { 'retry-after': '0' } } : n === 2 ? { status: 429, headers: { 'retry-after': '0' } } : { status: 200, body: '{}' }));
    const out = await run(['--otlp-endpoint', r.base]);
    expect(out.code).toBe(0);
    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
  }, 30_000);

  it('a 502 that never ends: 1 + 3 retries (backing off without Retry-After), then exit 2 in one line', async () => {
    const r = await receive(() => ({ status: 502 }));
    const out = await run(['--otlp-endpoint', r.base, '--fail-on', 'stop']);
    expect(r.received).toHaveLength(4);
    // The export's failure is the run's exit, over --fail-on's 1: the findings did not arrive.
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`loopledger: posting to ${r.base}/v1/logs (--otlp-endpoint): HTTP 502 after 4 attempts; 0 of ${FINDINGS} findings posted\n`);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it.each([400, 404, 413, 500])('HTTP %i is not retried: exit 2 with the receiver\'s message', async (status) => {
    const r = await receive(() => ({ status, body: JSON.stringify({ code: 3, message: 'logs are\nnot welcome here' }) }));
    const out = await run(['--otlp-endpoint', r.base]);
    expect(r.received).toHaveLength(1);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`HTTP ${status}: logs are not welcome here; 0 of ${FINDINGS} findings posted`);
  }, 30_000);

  it('a redirect is not followed (it would carry the findings and headers elsewhere)', async () => {
    const r = await receive((n) => (n === 1 ? { status: 307, headers: { location: '/elsewhere' } } : { status: 200 }));
    const out = await run(['--otlp-endpoint', r.base]);
    expect(r.received.map((x) => x.url)).toEqual(['/v1/logs']);
    expect(out.code).toBe(2);
  }, 30_000);

  it('a partial success is said with the count the receiver rejected; the run still exits 0 (OTLP: not to be retried)', async () => {
    const r = await receive(() => ({ status: 200, body: JSON.stringify({ partialSuccess: { rejectedLogRecords: '2', errorMessage: 'attribute too long' } }) }));
    const out = await run(['--otlp-endpoint', r.base]);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`the receiver rejected 2 of ${FINDINGS} findings (attribute too long)`);
  }, 30_000);

  it('nothing listening: one line naming the cause, exit 2', async () => {
    const r = await receive();
    const base = r.base;
    await r.close();
    receiver = null;
    const out = await run(['--otlp-endpoint', base]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`posting to ${base}/v1/logs (--otlp-endpoint): connection refused (ECONNREFUSED)`);
  }, 30_000);

  it('a flag value that is no URL (a path read as the optional value) is a usage error before any work', async () => {
    const out = await runCli(['--otlp-endpoint', 'fixtures'], { env: CLEAN });
    expect(out.code).toBe(2);
    expect(out.stderr.trim()).toBe('loopledger: --otlp-endpoint: fixtures is no URL; write --otlp-endpoint=URL, or put the paths before a bare --otlp-endpoint');
    expect(out.stdout).toBe('');
  }, 30_000);
});
