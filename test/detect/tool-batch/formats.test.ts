// Seed 000's cases on real transcript shapes: OpenAI Chat Completions and Anthropic Messages,
// read by the format adapters, then fed to the tool-batch detectors round by round.

import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../../src/formats/anthropic.js';
import { openaiAdapter } from '../../../src/formats/openai.js';
import type { Finding } from '../../../src/detect/types.js';
import type { FormatAdapter } from '../../../src/formats/types.js';
import { parseWith } from '../../helpers/record.js';
import { config, createToolBatchDetectors } from './rounds.js';

/** A step: a user message, or one batch of calls with the answers it got (null: unanswered). */
type Step = { user: string } | { calls: Array<[string, Record<string, unknown>]>; answers: string[] | null };

function openai(steps: Step[], argKeyOrder: 'as-is' | 'reversed' = 'as-is'): string {
  const messages: unknown[] = [];
  let id = 0;
  for (const s of steps) {
    if ('user' in s) {
      messages.push({ role: 'user', content: s.user });
      continue;
    }
    const ids = s.calls.map(() => `call_${(id += 1)}`);
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: s.calls.map(([name, args], i) => {
        const entries = Object.entries(args);
        const ordered = argKeyOrder === 'reversed' && i % 2 === 0 ? entries.reverse() : entries;
        return { id: ids[i], type: 'function', function: { name, arguments: JSON.stringify(Object.fromEntries(ordered)) } };
      }),
    });
    if (s.answers) s.answers.forEach((a, i) => messages.push({ role: 'tool', tool_call_id: ids[i], content: a }));
  }
  return JSON.stringify({ messages });
}

function anthropic(steps: Step[]): string {
  const messages: unknown[] = [];
  let id = 0;
  let pendingResults: unknown[] = [];
  const flush = () => {
    if (pendingResults.length > 0) messages.push({ role: 'user', content: pendingResults });
    pendingResults = [];
  };
  for (const s of steps) {
    if ('user' in s) {
      // Results first, then the user's words as their own message: a real user turn.
      flush();
      messages.push({ role: 'user', content: [{ type: 'text', text: s.user }] });
      continue;
    }
    flush();
    const ids = s.calls.map(() => `toolu_${(id += 1)}`);
    messages.push({
      role: 'assistant',
      content: s.calls.map(([name, input], i) => ({ type: 'tool_use', id: ids[i], name, input })),
    });
    if (s.answers) pendingResults = s.answers.map((a, i) => ({ type: 'tool_result', tool_use_id: ids[i], content: a }));
  }
  flush();
  return JSON.stringify({ messages });
}

function audit(adapter: FormatAdapter, text: string, overrides = {}): { stops: number[]; kinds: string[]; cycles: number[] } {
  const { sessions } = parseWith(adapter, text, { mode: 'document' });
  expect(sessions).toHaveLength(1);
  const both = createToolBatchDetectors(config(overrides));
  const findings: Array<[number, Finding]> = [];
  for (const round of sessions[0]!.rounds) {
    for (const f of [...both.batch.observe(round).findings, ...both.cycle.observe(round).findings]) findings.push([round.index, f]);
  }
  return {
    stops: findings.filter(([, f]) => f.loop).map(([i]) => i),
    kinds: findings.filter(([, f]) => f.loop).map(([, f]) => f.kind),
    cycles: findings.filter(([, f]) => f.kind === 'tool_cycle').map(([i]) => i),
  };
}

const write = (answer: string | null): Step => ({ calls: [['write_file', { path: 'a.txt', content: 'x' }]], answers: answer === null ? null : [answer] });
const snap = (answer: string): Step => ({ calls: [['browser_snapshot', {}]], answers: [answer] });
const times = (n: number, f: (i: number) => Step): Step[] => Array.from({ length: n }, (_, i) => f(i));

const FORMATS: Array<[string, (steps: Step[]) => string, FormatAdapter]> = [
  ['openai', (s) => openai(s), openaiAdapter],
  ['anthropic', anthropic, anthropicAdapter],
];

describe.each(FORMATS)('seed 000 through the %s adapter', (_name, render, adapter) => {
  it('two identical batches pass and the third stops', () => {
    expect(audit(adapter, render([{ user: 'go' }, ...times(3, () => write('ok'))])).stops).toEqual([3]);
  });

  it('max_strikes = 0 stops the first', () => {
    expect(audit(adapter, render([{ user: 'go' }, write('ok')]), { maxStrikes: 0 }).stops).toEqual([1]);
  });

  it('a user turn between repeats prevents a stop', () => {
    expect(audit(adapter, render([{ user: 'go' }, write('ok'), write('ok'), { user: 'again' }, write('ok'), write('ok')])).stops).toEqual([]);
  });

  it('three unanswered identical batches stop at the third', () => {
    expect(audit(adapter, render([{ user: 'go' }, ...times(3, () => write(null))])).stops).toEqual([3]);
  });

  it('a mutating batch with changing answers stops at 16 (ceiling), not 15', () => {
    const r = audit(adapter, render([{ user: 'go' }, ...times(16, (i) => write(`wrote ${i}`))]));
    expect(r.stops).toEqual([16]);
    expect(r.kinds).toEqual(['ceiling']);
  });

  it('a read-only batch with changing answers never stops; with identical answers it stops at 16', () => {
    expect(audit(adapter, render([{ user: 'go' }, ...times(30, (i) => snap(`page ${i}`))])).stops).toEqual([]);
    expect(audit(adapter, render([{ user: 'go' }, ...times(16, () => snap('page'))])).stops).toEqual([16]);
  });

  it('max_observation_steps = none stops the third snapshot even with changing answers', () => {
    const r = audit(adapter, render([{ user: 'go' }, ...times(3, (i) => snap(`page ${i}`))]), { maxObservationSteps: null });
    expect(r.stops).toEqual([3]);
  });

  it('A,B,A,B never stops, and shows as a tool_cycle when the answers repeat', () => {
    const ab = (i: number): Step => (i % 2 === 0 ? write('ok') : { calls: [['bash', { command: 'npm test' }]], answers: ['1 failing'] });
    const r = audit(adapter, render([{ user: 'go' }, ...times(6, ab)]));
    expect(r.stops).toEqual([]);
    expect(r.cycles).toEqual([6]);
  });
});

describe('OpenAI arguments as JSON strings', () => {
  it('reordered calls and reordered argument keys are one signature', () => {
    const batch = (flip: boolean): Step => {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['write_file', { path: 'a', content: 'b' }],
        ['bash', { command: 'ls', cwd: '/' }],
      ];
      return { calls: flip ? [calls[1]!, calls[0]!] : calls, answers: flip ? ['listed', 'written'] : ['written', 'listed'] };
    };
    const text = openai([{ user: 'go' }, batch(false), batch(true), batch(false)], 'reversed');
    expect(audit(openaiAdapter, text).stops).toEqual([3]);
  });
});
