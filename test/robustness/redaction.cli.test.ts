// Issue 27.15: a judge credential must never be echoed. A URL's userinfo and query values are
// redacted wherever a URL is printed or recorded: error messages, warnings, the ledger's `config`
// in every output format, `loopledger config`, a merged ledger. The test greps all of them.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrls } from '../../src/config/redact.js';
import { REPORT_FORMATS } from '../../src/vocabulary.js';
import { ensureBuilt, FIXTURES, scratch, spawnCli } from './helpers.js';

const tmp = scratch('loopledger-redact-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const SECRET = 'sk-SECRET-0123456789';
const LOOPING = join(FIXTURES, 'claude-code', 'looping-test-fix.jsonl');
// Port 9 (discard) refuses at once: the judge fails fast and the breaker's warning names the URL.
const KEYED = `http://127.0.0.1:9/v1?api_key=${SECRET}&x=${SECRET}`;
const judge = (endpoint: string) => ['--set', `judge.endpoint=${endpoint}`, '--set', 'judge.model=gpt-4o-mini'];

function clean(text: string): void {
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain('SECRET');
}

describe('redactUrls', () => {
  it('hides userinfo and every query value, keeps scheme, host, path and the names', () => {
    expect(redactUrls('htps://u:SECRET@h/v1')).toBe('htps://***@h/v1');
    expect(redactUrls('see https://a:b@c@host:8080/p?key=SECRET&v=2&bare#tok=SECRET and more')).toBe(
      'see https://***@host:8080/p?key=***&v=***&***#tok=*** and more',
    );
    expect(redactUrls('http://localhost:11434/v1')).toBe('http://localhost:11434/v1');
    expect(redactUrls('no url here: a=b?c')).toBe('no url here: a=b?c');
  });

  it('a secret put in the userinfo or a query value never survives (property)', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9._~-]{6,24}$/).map((s) => `Z${s}Z`);
    fc.assert(
      fc.property(secret, fc.constantFrom('http', 'https', 'htps', 'ftp'), fc.boolean(), fc.stringMatching(/^[a-z_]{1,8}$/), (s, scheme, inUser, name) => {
        const url = inUser ? `${scheme}://user:${s}@host.example/v1` : `${scheme}://host.example/v1?${name}=${s}`;
        const out = redactUrls(`endpoint ${JSON.stringify(url)} refused`);
        expect(out).not.toContain(s);
        expect(out).toContain('host.example/v1');
      }),
    );
  });
});

describe('nothing loopledger prints or writes holds the secret', () => {
  it('a wrong scheme with credentials: the error names the URL without them (exit 2)', async () => {
    const r = await spawnCli([LOOPING, ...judge(`htps://u:${SECRET}@h/v1`)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('htps://***@h/v1');
    clean(r.stderr + r.stdout.toString());
  });

  it.each(REPORT_FORMATS)('--format %s with a key in the endpoint\'s query: stdout and stderr', async (format) => {
    const r = await spawnCli([LOOPING, '--format', format, '--explain', '--verbose', ...judge(KEYED)], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).not.toBeNull();
    clean(r.stdout.toString('utf8'));
    clean(r.stderr);
  });

  it('the ledger records the endpoint redacted, and merge and -o keep it so', async () => {
    const out = join(tmp.dir, 'ledger.json');
    const r = await spawnCli([LOOPING, '--format', 'json', '-o', out, ...judge(KEYED)], { timeoutMs: 60_000 });
    expect(r.code, r.stderr).not.toBeNull();
    const written = readFileSync(out, 'utf8');
    clean(written);
    expect((JSON.parse(written) as { config: Record<string, unknown> }).config['judge.endpoint']).toBe('http://127.0.0.1:9/v1?api_key=***&x=***');
    const merged = await spawnCli(['merge', out, '--format', 'json']);
    expect(merged.code, merged.stderr).toBe(0);
    clean(merged.stdout.toString('utf8') + merged.stderr);
  });

  it.each(['table', 'json'])('loopledger config --format %s', async (format) => {
    const r = await spawnCli(['config', '--format', format, '--verbose', ...judge(KEYED)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.toString()).toContain('api_key=***');
    clean(r.stdout.toString('utf8') + r.stderr);
  });
});
