// OpenAI Responses API logs through the openai reader, which shares its item code with the codex
// reader (src/formats/shared/response-items.ts).

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audit } from '../../src/run/audit.js';
import { codexAdapter } from '../../src/formats/codex.js';
import { detectFormat } from '../../src/formats/index.js';
import { ingestFile } from '../../src/formats/ingest.js';
import { openaiAdapter } from '../../src/formats/openai.js';
import { RecordingSink, jsonl, parseWith } from '../helpers/record.js';

const dir = path.resolve(import.meta.dirname, '../../fixtures/openai');
const ITEMS = path.join(dir, 'responses-items-deploy-docs.jsonl');
const REQUEST = path.join(dir, 'responses-request-pypi-version.json');
const LOG = path.join(dir, 'responses-log-weather.jsonl');

async function read(file: string) {
  const sink = new RecordingSink();
  const summary = await ingestFile(file, sink);
  return { summary, s: sink.sessions[0]!, sessions: sink.sessions };
}

describe('Responses items, one per line (fixture: the same failing deploy four times)', () => {
  it('output items in a row are one round; a function_call is answered by the output with its call_id, not its id', async () => {
    const { summary, s } = await read(ITEMS);
    expect(summary).toMatchObject({ format: 'openai', sessions: 1, skipped: [] });
    expect(s.turns).toEqual([1]);
    const r1 = s.rounds[0]!;
    expect(r1.calls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['call_ex01', 'read_file', { path: 'CHANGELOG.md' }],
      ['call_ex02', 'run', { cmd: 'mkdocs build --strict' }],
    ]);
    // outputs arrive in the other order
    expect(r1.answers!.map((a) => a.content)).toEqual(['## v2.4.0\n- faster startup\n- new --json flag\n', 'INFO - Documentation built in 1.92 seconds']);
    expect(r1.thinking).toEqual([{ text: 'Read the changelog entry and check the docs build before publishing.', opaque: false }]);
    // the message and the first deploy call are one response
    expect(s.rounds[1]!.text).toBe('The changelog entry is there and the docs build. Publishing now.');
    expect(s.rounds.map((r) => r.calls.length)).toEqual([2, 1, 1, 1, 1, 0]);
  });

  it('the ledger stops the third identical deploy (round 4)', async () => {
    const report = await audit([ITEMS], { jobs: 1 });
    expect(report.sessions[0]!.outcome.enforce.stops).toEqual([{ turn: 1, round: 4 }]);
  });

  it('the same items as a JSON array read the same', () => {
    const items = fs.readFileSync(ITEMS, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    const fromArray = parseWith(openaiAdapter, JSON.stringify(items), { mode: 'document', path: 'items.json' }).sessions[0]!;
    const fromLines = parseWith(openaiAdapter, jsonl(items), { path: 'items.jsonl' }).sessions[0]!;
    expect(fromArray.rounds.map((r) => ({ ...r, line: null }))).toEqual(fromLines.rounds.map((r) => ({ ...r, line: null })));
  });
});

describe('a Responses request body', () => {
  it('developer text is no turn; encrypted reasoning is opaque; an output given as content parts; a hosted web search is unanswered', async () => {
    const { s } = await read(REQUEST);
    expect(s.info.id).toBe('responses-request-pypi-version');
    expect(s.turns).toEqual([1, 2]);
    expect(s.rounds.map((r) => [r.turn, r.calls.map((c) => c.name), r.text])).toEqual([
      [1, ['run'], ''],
      [1, [], '2.3.1 is the latest on PyPI.'],
      [2, ['web_search'], 'The docs site shows 2.3.0; it lags one release behind.'],
    ]);
    expect(s.rounds[0]!.thinking).toEqual([{ text: null, opaque: true }]);
    expect(s.rounds[0]!.answers).toEqual([{ content: 'examplepkg (2.3.1)\nAvailable versions: 2.3.1, 2.3.0, 2.2.9', isError: false }]);
    expect(s.rounds[2]!.answers).toBeNull();
    expect(s.rounds.every((r) => r.model === 'gpt-example-5')).toBe(true);
  });

  it('one request per JSONL line is a conversation of its own, like a {messages} line', () => {
    const req = JSON.parse(fs.readFileSync(REQUEST, 'utf8')) as unknown;
    const { sessions } = parseWith(openaiAdapter, jsonl([req, req]), { path: '/logs/requests.jsonl' });
    expect(sessions.map((x) => [x.info.id, x.rounds.length, x.ended])).toEqual([
      ['requests:1', 3, true],
      ['requests:2', 3, true],
    ]);
  });
});

describe('Response objects', () => {
  it('one round each, with model, creation time and usage (reasoning tokens apart)', async () => {
    const { s } = await read(LOG);
    expect(s.rounds.map((r) => [r.calls.map((c) => c.id), r.text, r.usage, r.timestamp])).toEqual([
      [['call_l1'], '', { inputTokens: 410, outputTokens: 96, reasoningTokens: 64, cacheReadTokens: 0 }, new Date(1772000030 * 1000).toISOString()],
      [[], 'It is 14 °C and cloudy in Lyon; take a light jacket.', { inputTokens: 530, outputTokens: 31, reasoningTokens: 0, cacheReadTokens: 384 }, new Date(1772000060 * 1000).toISOString()],
    ]);
    expect(s.rounds.every((r) => r.model === 'gpt-example-5-mini')).toBe(true);
    // the call's output goes back in the next request, which a log of responses does not hold
    expect(s.rounds[0]!.answers).toBeNull();
  });
});

describe('detection and the codex reader', () => {
  it('Responses shapes are openai; Chat Completions files are unchanged', () => {
    const items = fs.readFileSync(ITEMS, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(detectFormat({ mode: 'jsonl', fileName: 'i.jsonl', records: items })?.name).toBe('openai');
    expect(detectFormat({ mode: 'document', fileName: 'r.json', value: JSON.parse(fs.readFileSync(REQUEST, 'utf8')) })?.name).toBe('openai');
    expect(detectFormat({ mode: 'jsonl', fileName: 'l.jsonl', records: fs.readFileSync(LOG, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown) })?.name).toBe('openai');
    // without its header line a pre-envelope Codex rollout is plain Responses items: openai reads it
    expect(codexAdapter.detect({ mode: 'jsonl', fileName: 'i.jsonl', records: items })).toBe(0);
  });

  it('codex and openai read a function_call / function_call_output pair alike', () => {
    const call = { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' };
    const output = { type: 'function_call_output', call_id: 'call_1', output: 'a\nb' };
    const viaOpenai = parseWith(openaiAdapter, jsonl([{ role: 'user', content: 'list' }, call, output]), { path: 'x.jsonl' }).sessions[0]!.rounds;
    const viaCodex = parseWith(
      codexAdapter,
      jsonl([
        { timestamp: 't', type: 'session_meta', payload: { id: 's1' } },
        { timestamp: 't', type: 'response_item', payload: call },
        { timestamp: 't', type: 'response_item', payload: output },
      ]),
      { path: 'rollout.jsonl' },
    ).sessions[0]!.rounds;
    const core = (rs: typeof viaOpenai) => rs.map((r) => ({ calls: r.calls, answers: r.answers }));
    expect(core(viaOpenai)).toEqual(core(viaCodex));
    expect(core(viaOpenai)).toEqual([{ calls: [{ id: 'call_1', name: 'shell', arguments: { command: ['ls'] } }], answers: [{ content: 'a\nb', isError: false }] }]);
  });
});
