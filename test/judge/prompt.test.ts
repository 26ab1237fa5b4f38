// What the judge is shown: seed 002's "bounded summary evidence (signal kind, confidence,
// statistics, at most three 80-character excerpts)", never full text.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestBody } from '../../src/judge/client.js';
import { evidenceKey, judgeMessages, judgeStatistics } from '../../src/ladder/judge-prompt.js';
import { longestSharedRun } from './helpers.js';

describe('judgeMessages', () => {
  const request = {
    detector: 'thinking' as const,
    kind: 'thinking_stagnation',
    confidence: 0.889,
    evidence: { similarity: 0.889, identical: false, block_chars: 168, block: 2 },
    excerpts: ['next is src/api/refunds.ts. i need to check it for unchecked nulls, swallowed er'],
  };

  it('carries the signal kind, the confidence, the statistics and the excerpts', () => {
    const [system, user] = judgeMessages(request);
    expect(system!.role).toBe('system');
    expect(system!.content).toContain('"verdict"');
    expect(user!.content).toContain('signal: thinking_stagnation (thinking detector)');
    expect(user!.content).toContain('detector confidence: 0.889');
    expect(user!.content).toContain('statistics: {"block":2,"block_chars":168,"identical":false,"similarity":0.889}');
    expect(user!.content).toContain(JSON.stringify(request.excerpts));
  });

  it('"at most three 80-character excerpts"', () => {
    const long = ['a'.repeat(500), 'b'.repeat(81), 'c', 'd'.repeat(90)];
    const user = judgeMessages({ ...request, excerpts: long })[1]!.content;
    expect(user).toContain(JSON.stringify(['a'.repeat(80), 'b'.repeat(80), 'c']));
    expect(user).not.toContain('d'.repeat(5));
  });

  it('statistics are numbers, flags and short identifiers only: free text in evidence is dropped', () => {
    expect(judgeStatistics({ n: 3, ok: true, none: null, unit: 'word', text: 'the agent said this and that', arr: [1, 2, 3] })).toEqual({
      arr: [1, 2, 3],
      n: 3,
      none: null,
      ok: true,
      unit: 'word',
    });
  });

  it('is deterministic: the same evidence, the same messages, the same key', () => {
    const reordered = { ...request, evidence: { block: 2, similarity: 0.889, block_chars: 168, identical: false } };
    expect(judgeMessages(reordered)).toEqual(judgeMessages(request));
    expect(evidenceKey('m', judgeMessages(reordered))).toBe(evidenceKey('m', judgeMessages(request)));
  });

  it('never more than 80 consecutive characters of any excerpt or statistic, whatever they hold', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 0, maxLength: 400, unit: 'grapheme' }), { maxLength: 6 }),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 300 }), fc.double(), fc.boolean())),
        (excerpts, evidence) => {
          const body = requestBody('m', judgeMessages({ ...request, excerpts, evidence }));
          const content = (JSON.parse(body) as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
          for (const text of [...excerpts, ...Object.values(evidence).filter((v): v is string => typeof v === 'string')]) {
            expect(longestSharedRun(text, content)).toBeLessThanOrEqual(80);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
