// One arbitration over HTTP against a real server on 127.0.0.1 that answers each case: seed 002's
// "One provider attempt per arbitration, capped by a timeout", and "every unusable path returns
// Indeterminate".

import { afterEach, describe, expect, it } from 'vitest';
import { askJudge, MAX_REPLY_BYTES } from '../../src/judge/client.js';
import { chatCompletionsUrl } from '../../src/judge/settings.js';
import { judgeMessages } from '../../src/ladder/judge-prompt.js';
import { clearing, completion, confirming, type JudgeServer, type Reply, startJudgeServer } from './helpers.js';

const messages = judgeMessages({
  detector: 'output',
  kind: 'near_repetition',
  confidence: 0.87,
  evidence: { similarity: 0.87 },
  excerpts: ['let me re-check the config once more'],
});

let server: JudgeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function ask(reply: Reply | ((n: number) => Reply), over: { timeoutMs?: number; apiKey?: string | null } = {}) {
  server = await startJudgeServer((_r, n) => (typeof reply === 'function' ? reply(n) : reply));
  const outcome = await askJudge(
    { url: chatCompletionsUrl(server.url), model: 'judge-mini', apiKey: over.apiKey ?? null, timeoutMs: over.timeoutMs ?? 5000 },
    messages,
  );
  return { outcome, requests: server.requests };
}

describe('askJudge', () => {
  it('confirming: a loop verdict with its confidence and the tokens the endpoint reported', async () => {
    const { outcome, requests } = await ask(confirming(0.96));
    expect(outcome).toEqual({
      answer: { verdict: 'loop', confidence: 0.96, reason: 'the same reasoning restated without new information' },
      inputTokens: 310,
      outputTokens: 24,
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe('POST');
    expect(requests[0]!.path).toBe('/v1/chat/completions');
    expect(requests[0]!.headers['content-type']).toBe('application/json');
    // Only the model and the messages: nothing a strict server or a reasoning model would refuse.
    expect(requests[0]!.json).toEqual({ model: 'judge-mini', messages });
  });

  it('clearing: a fenced progress verdict', async () => {
    const { outcome } = await ask(clearing(0.95));
    expect(outcome.answer).toMatchObject({ verdict: 'progress', confidence: 0.95 });
  });

  it('the key goes in the Authorization header only', async () => {
    const { requests } = await ask(confirming(), { apiKey: 'sk-test-0123456789' });
    expect(requests[0]!.headers['authorization']).toBe('Bearer sk-test-0123456789');
    expect(requests[0]!.body).not.toContain('sk-test');
    const none = await ask(confirming(), { apiKey: null });
    expect(none.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('garbage: an unreadable reply is unparsable (its tokens still counted)', async () => {
    expect((await ask(completion('I cannot help with that.'))).outcome).toEqual({
      answer: null,
      unusable: 'unparsable',
      inputTokens: 310,
      outputTokens: 24,
    });
    expect((await ask({ raw: '<html>bad gateway</html>' })).outcome).toMatchObject({ answer: null, unusable: 'unparsable' });
    expect((await ask({ json: { choices: [] } })).outcome).toMatchObject({ answer: null, unusable: 'unparsable' });
  });

  it('slow: one attempt, capped by the timeout', async () => {
    const started = Date.now();
    const { outcome, requests } = await ask({ ...confirming(), delayMs: 3000 }, { timeoutMs: 200 });
    expect(outcome).toMatchObject({ answer: null, unusable: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2500);
    expect(requests).toHaveLength(1);
  });

  it('HTTP 500 and 429: Indeterminate, and no retry', async () => {
    const e500 = await ask({ status: 500, json: { error: { message: 'internal' } } });
    expect(e500.outcome).toMatchObject({ answer: null, unusable: 'http_500' });
    expect(e500.requests).toHaveLength(1);
    const e429 = await ask({ status: 429, json: { error: { message: 'rate limited' } } });
    expect(e429.outcome).toMatchObject({ answer: null, unusable: 'http_429' });
    expect(e429.requests).toHaveLength(1);
  });

  it('nobody listening: network', async () => {
    server = await startJudgeServer(() => confirming());
    const url = chatCompletionsUrl(server.url);
    await server.close();
    server = null;
    const outcome = await askJudge({ url, model: 'm', apiKey: null, timeoutMs: 2000 }, messages);
    expect(outcome).toMatchObject({ answer: null, unusable: 'network' });
  });

  it('a reply far larger than a verdict is read only so far, and is not a verdict', async () => {
    const { outcome } = await ask({ raw: `{"verdict":"loop","confidence":0.99,"reason":"${'x'.repeat(MAX_REPLY_BYTES + 10)}"}` });
    expect(outcome.answer).toBeNull();
  });
});

describe('chatCompletionsUrl', () => {
  it('a base URL gets /chat/completions; a full one is kept', () => {
    expect(chatCompletionsUrl('https://api.openai.com/v1')).toBe('https://api.openai.com/v1/chat/completions');
    expect(chatCompletionsUrl('http://localhost:11434/v1/')).toBe('http://localhost:11434/v1/chat/completions');
    expect(chatCompletionsUrl('http://h:8000/v1/chat/completions')).toBe('http://h:8000/v1/chat/completions');
  });

  it('refuses what is no http(s) URL, and credentials in the URL', () => {
    expect(() => chatCompletionsUrl('localhost:11434')).toThrow(/http/);
    expect(() => chatCompletionsUrl('ftp://x/v1')).toThrow(/http/);
    expect(() => chatCompletionsUrl('https://user:sk-secret@host/v1')).toThrow(/judge.api_key_env/);
    expect(() => chatCompletionsUrl('https://user:sk-secret@host/v1')).not.toThrow(/sk-secret/);
  });
});
