// Gemini CLI 0.61's shell answers, as the reader and the live guard both normalise them
// (src/formats/shared/gemini-output.ts). Issue 29: "each answer is wrapped in <untrusted_context>
// and ends with a `Process Group PGID: <n>` line that differs every call, so no two answers match
// (the hook strips that line; the reader does not). It also counts the injected
// `<session_context>` message as a user turn."

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseGeminiOutput } from '../../src/formats/shared/gemini-output.js';
import { geminiAdapter } from '../../src/formats/gemini.js';
import { jsonl, parseWith } from '../helpers/record.js';

/** The shell tool's llmContent in 0.61, as the recording in fixtures/agents/gemini-0.61.0 shows it. */
const answer = (output: string, exit: number, pgid: number) =>
  `<untrusted_context>\nOutput: ${output}\nExit Code: ${exit}\nProcess Group PGID: ${pgid}\n</untrusted_context>`;

const line = fc.string({ maxLength: 40 }).filter((s) => !s.includes('\n') && !s.includes('<'));

describe('normaliseGeminiOutput', () => {
  it('two runs of one command that differ only in their process group read the same', () => {
    fc.assert(
      fc.property(line, fc.integer({ min: 0, max: 1 }), fc.nat(), fc.nat(), (out, exit, a, b) => {
        expect(normaliseGeminiOutput(answer(out, exit, a))).toBe(normaliseGeminiOutput(answer(out, exit, b)));
      }),
    );
  });

  it('answers that differ in the command output still differ', () => {
    fc.assert(
      fc.property(line, line, fc.nat(), (x, y, pgid) => {
        fc.pre(x !== y);
        expect(normaliseGeminiOutput(answer(x, 1, pgid))).not.toBe(normaliseGeminiOutput(answer(y, 1, pgid)));
      }),
    );
  });

  it('unwraps <untrusted_context> and drops the tool\'s own lines, keeping the rest', () => {
    expect(normaliseGeminiOutput(answer('cat: missing.txt: No such file or directory', 1, 17614))).toBe(
      'Output: cat: missing.txt: No such file or directory\nExit Code: 1\n',
    );
    expect(normaliseGeminiOutput('plain text')).toBe('plain text');
    expect(normaliseGeminiOutput({ not: 'a string' })).toEqual({ not: 'a string' });
  });
});

describe('the Gemini CLI reader on a 0.61 recording', () => {
  const meta = { sessionId: 's-061', projectHash: 'p', startTime: '2026-12-02T03:49:14.227Z', lastUpdated: '2026-12-02T03:49:14.227Z', kind: 'main' };
  const call = (n: number, pgid: number) => ({
    id: `m${n}`,
    timestamp: '2026-12-02T03:49:15.000Z',
    type: 'gemini',
    content: '',
    model: 'gemini-2.5-pro',
    toolCalls: [
      {
        id: `c${n}`,
        name: 'run_shell_command',
        args: { command: 'cat missing.txt' },
        status: 'success',
        result: [{ functionResponse: { id: `c${n}`, name: 'run_shell_command', response: { output: answer('cat: missing.txt: No such file or directory', 1, pgid) } } }],
      },
    ],
  });
  const records = [
    meta,
    { id: 'ctx', timestamp: '2026-12-02T03:49:14.228Z', type: 'user', content: [{ text: '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n</session_context>' }] },
    { id: 'u1', timestamp: '2026-12-02T03:49:14.245Z', type: 'user', content: [{ text: 'Read missing.txt and fix it.' }] },
    call(1, 17614),
    call(2, 17686),
    call(3, 17750),
  ];

  it('reads one turn (the injected <session_context> is not one) and three identical answers', () => {
    const { sessions } = parseWith(geminiAdapter, jsonl(records), { mode: 'jsonl', path: 'session-2026-12-02T03-49-s061.jsonl' });
    const s = sessions[0]!;
    expect(s.turns).toEqual([1]);
    expect(s.rounds).toHaveLength(3);
    const answers = s.rounds.map((r) => r.answers?.[0]?.content);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toBe('Output: cat: missing.txt: No such file or directory\nExit Code: 1\n');
  });
});
