// The hook reads a transcript a piece at a time, as the agent writes it. Whatever the pieces
// (cut mid-line, mid-round, one byte at a time), the rounds it commits plus the round it holds
// back at the end must be exactly what one reading of the whole file gives.

import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATCH_UP_BYTES, loadAdapter, readTranscript, type TranscriptCursor, TranscriptRotated } from '../../src/hook/transcript.js';
import type { Agent } from '../../src/hook/payload.js';
import type { Round } from '../../src/model/transcript.js';
import { scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-hook-transcript-');
afterAll(() => tmp.cleanup());
beforeAll(async () => {
  for (const agent of ['claude-code', 'codex', 'gemini'] as const) await loadAdapter(agent);
});

type Step = { kind: 'user' } | { kind: 'round'; calls: number; text: boolean; failing: boolean };

/** A session in each agent's format, as the lines the agent appends. */
function linesFor(agent: Agent, steps: readonly Step[]): string[] {
  const out: unknown[] = [];
  let n = 0;
  if (agent === 'codex') out.push({ timestamp: 't', type: 'session_meta', payload: { id: 'c-1', instructions: 'x' } });
  if (agent === 'gemini') out.push({ sessionId: 'g-1', projectHash: 'p', startTime: 't', lastUpdated: 't', kind: 'main' });
  for (const step of steps) {
    n += 1;
    if (step.kind === 'user') {
      if (agent === 'claude-code') out.push({ type: 'user', sessionId: 's-1', uuid: `u${n}`, message: { role: 'user', content: `please ${n}` } });
      if (agent === 'codex') {
        out.push({ timestamp: 't', type: 'turn_context', payload: { model: 'gpt-5-codex' } });
        out.push({ timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `please ${n}` }] } });
      }
      if (agent === 'gemini') out.push({ id: `gu${n}`, type: 'user', content: [{ text: `please ${n}` }] });
      continue;
    }
    const ids = Array.from({ length: step.calls }, (_, i) => `call_${n}_${i}`);
    const text = step.text ? `Working on step ${n}.` : '';
    if (agent === 'claude-code') {
      const msg = (block: unknown) => ({ type: 'assistant', sessionId: 's-1', uuid: `a${n}-${Math.random()}`, message: { id: `msg_${n}`, model: 'claude-sonnet-4-5', role: 'assistant', content: [block] } });
      if (text) out.push(msg({ type: 'text', text }));
      for (const id of ids) out.push(msg({ type: 'tool_use', id, name: 'Bash', input: { command: `step ${n}` } }));
      for (const id of ids) out.push({ type: 'user', sessionId: 's-1', uuid: `r${id}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: step.failing ? 'boom' : `ok ${n}`, is_error: step.failing }] } });
    } else if (agent === 'codex') {
      if (text) out.push({ timestamp: 't', type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] } });
      for (const id of ids) out.push({ timestamp: 't', type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `step ${n}` }), call_id: id } });
      out.push({ timestamp: 't', type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 5, output_tokens: 1 } } } });
      for (const id of ids) out.push({ timestamp: 't', type: 'response_item', payload: { type: 'function_call_output', call_id: id, output: step.failing ? 'boom' : `ok ${n}` } });
    } else {
      const calls = ids.map((id) => ({ id, name: 'run_shell_command', args: { command: `step ${n}` }, status: 'executing' }));
      const base = { id: `gm${n}`, type: 'gemini', content: text, model: 'gemini-2.5-pro' };
      out.push({ ...base, toolCalls: calls });
      out.push({ ...base, toolCalls: calls.map((c) => ({ ...c, status: 'success', result: [{ functionResponse: { id: c.id, name: c.name, response: { output: `ok ${n}` } } }] })) });
    }
  }
  return out.map((r) => JSON.stringify(r));
}

interface Seen {
  turn: number;
  index: number;
  line: number | null;
  text: string;
  calls: (string | null)[];
  answers: string[] | null;
}

function seen(r: Round): Seen {
  return { turn: r.turn, index: r.index, line: r.line, text: r.text, calls: r.calls.map((c) => c.id), answers: r.answers?.map((a) => a.content) ?? null };
}

/** One reading of the whole file: committed rounds, then the held-back one. */
function whole(agent: Agent, path: string): { rounds: Seen[]; turns: number[] } {
  const { delta } = readTranscript(agent, path, null);
  const rounds = delta.events.flatMap((e) => (e.type === 'round' ? [seen(e.round)] : []));
  if (delta.tentative) rounds.push(seen(delta.tentative));
  return { rounds, turns: delta.events.flatMap((e) => (e.type === 'turn' ? [e.turn] : [])) };
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'user' }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('round' as const), calls: fc.integer({ min: 0, max: 3 }), text: fc.boolean(), failing: fc.boolean() }) },
);

let files = 0;

describe.each<Agent>(['claude-code', 'codex', 'gemini'])('readTranscript (%s)', (agent) => {
  it('pieces read incrementally commit exactly what one reading of the whole gives', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 12 }), fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 30 }), (steps, cuts) => {
        const text = linesFor(agent, [{ kind: 'user' }, ...steps]).join('\n') + '\n';
        const path = join(tmp.dir, `${agent}-${++files}.jsonl`);
        writeFileSync(path, '');
        let cursor: TranscriptCursor | null = null;
        const committed: Seen[] = [];
        const turns: number[] = [];
        let tentative: Seen | null = null;
        let at = 0;
        let c = 0;
        while (at < text.length) {
          const size = cuts[c++ % cuts.length]!;
          appendFileSync(path, text.slice(at, at + size));
          at += size;
          const read = readTranscript(agent, path, cursor);
          cursor = read.cursor;
          for (const e of read.delta.events) {
            if (e.type === 'round') committed.push(seen(e.round));
            else turns.push(e.turn);
          }
          tentative = read.delta.tentative ? seen(read.delta.tentative) : null;
        }
        const expected = whole(agent, path);
        expect([...committed, ...(tentative ? [tentative] : [])]).toEqual(expected.rounds);
        expect(turns).toEqual(expected.turns);
      }),
      { numRuns: 40 },
    );
  });
});

describe('readTranscript', () => {
  it('costs the new bytes plus one round: the cursor sits at the start of the round in progress', () => {
    const path = tmp.write('cost.jsonl', linesFor('claude-code', [{ kind: 'user' }, ...Array.from({ length: 50 }, () => ({ kind: 'round', calls: 1, text: true, failing: false }) as Step)]).join('\n') + '\n');
    const { cursor, delta } = readTranscript('claude-code', path, null);
    expect(delta.tentative).not.toBeNull();
    const lastRoundStart = delta.tentative!.line!;
    expect(cursor.line).toBe(lastRoundStart - 1);
    // A second reading with nothing new hands the same round back, and nothing else.
    const again = readTranscript('claude-code', path, cursor);
    expect(again.delta.events).toEqual([]);
    expect(seen(again.delta.tentative!)).toEqual(seen(delta.tentative!));
  });

  it('a session met late reads only the end of a long transcript, with the head\'s session record', () => {
    const steps: Step[] = [{ kind: 'user' }];
    for (let i = 0; i < 400; i++) steps.push({ kind: 'round', calls: 1, text: true, failing: false });
    const lines = linesFor('codex', steps);
    // Padding the rounds' outputs makes the transcript longer than what a first call reads.
    const pad = 'x'.repeat(Math.ceil((CATCH_UP_BYTES * 1.5) / 400));
    const text = lines.map((l) => l.replace(/"ok (\d+)"/, `"ok $1 ${pad}"`)).join('\n') + '\n';
    const path = tmp.write('late.jsonl', text);
    const { delta, cursor } = readTranscript('codex', path, null);
    const rounds = delta.events.flatMap((e) => (e.type === 'round' ? [e.round] : []));
    expect(rounds.length).toBeGreaterThan(50);
    expect(rounds.length).toBeLessThan(400);
    // The thread is the rollout's own (its session_meta came along), and reading goes on from here.
    expect(cursor.main).toBe('c-1');
    expect(rounds.at(-1)!.calls[0]!.id).toBe('call_400_0');
    expect(delta.tentative!.calls[0]!.id).toBe('call_401_0');
    appendFileSync(path, linesFor('codex', [{ kind: 'user' }]).slice(1).join('\n') + '\n');
    const next = readTranscript('codex', path, cursor);
    expect(next.delta.events.some((e) => e.type === 'turn')).toBe(true);
  });

  it('a file replaced or cut short is reported, never read from the old offset', () => {
    const path = tmp.write('rot.jsonl', linesFor('claude-code', [{ kind: 'user' }, { kind: 'round', calls: 1, text: true, failing: false }, { kind: 'user' }]).join('\n') + '\n');
    const { cursor } = readTranscript('claude-code', path, null);
    writeFileSync(path, '');
    expect(() => readTranscript('claude-code', path, cursor)).toThrow(TranscriptRotated);
  });

  it('reads a legacy Gemini JSON session whole, handing over only the rounds not seen yet', () => {
    const doc = (n: number) => ({
      sessionId: 'g-legacy',
      projectHash: 'p',
      messages: [
        { id: 'u1', type: 'user', content: 'list files' },
        ...Array.from({ length: n }, (_, i) => ({ id: `m${i}`, type: 'gemini', content: `step ${i}`, toolCalls: [{ id: `c${i}`, name: 'ls', args: { i }, status: 'success', resultDisplay: 'ok' }] })),
      ],
    });
    const path = tmp.write('legacy.json', JSON.stringify(doc(2), null, 2));
    const first = readTranscript('gemini', path, null);
    expect(first.cursor.mode).toBe('document');
    expect(first.delta.events.filter((e) => e.type === 'round')).toHaveLength(1);
    writeFileSync(path, JSON.stringify(doc(4), null, 2));
    const second = readTranscript('gemini', path, first.cursor);
    const rounds = second.delta.events.flatMap((e) => (e.type === 'round' ? [e.round.text] : []));
    expect(rounds).toEqual(['step 1', 'step 2']);
    expect(second.delta.tentative?.text).toBe('step 3');
  });
});
