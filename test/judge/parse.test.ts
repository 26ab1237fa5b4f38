// The judge's reply "parsed defensively" (seed 002): whatever a model sends back, a verdict is read
// only when it is certain, and nothing ever throws.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_REASON_CHARS, parseVerdictReply } from '../../src/judge/parse.js';

describe('parseVerdictReply', () => {
  it('the contract: {"verdict":"loop"|"progress","confidence":…,"reason":…}', () => {
    expect(parseVerdictReply('{"verdict":"loop","confidence":0.93,"reason":"same plan restated"}')).toEqual({
      verdict: 'loop',
      confidence: 0.93,
      reason: 'same plan restated',
    });
    expect(parseVerdictReply('{"verdict": "progress", "confidence": 1, "reason": "different files"}')).toEqual({
      verdict: 'progress',
      confidence: 1,
      reason: 'different files',
    });
  });

  it('code fences and prose around the object', () => {
    const fenced = 'Here is my verdict:\n```json\n{"verdict": "progress", "confidence": 0.91, "reason": "each block names another file"}\n```\nHope this helps.';
    expect(parseVerdictReply(fenced)).toEqual({ verdict: 'progress', confidence: 0.91, reason: 'each block names another file' });
    expect(parseVerdictReply('I think {"verdict":"loop","confidence":0.95} is right')).toMatchObject({ verdict: 'loop', confidence: 0.95 });
  });

  it('missing fields: no confidence is null (never escalates), no reason is null, no verdict is nothing', () => {
    expect(parseVerdictReply('{"verdict":"loop"}')).toEqual({ verdict: 'loop', confidence: null, reason: null });
    expect(parseVerdictReply('{"confidence":0.99,"reason":"x"}')).toBeNull();
    expect(parseVerdictReply('{}')).toBeNull();
  });

  it('confidence: a number in 0..1 or a string holding one; anything else is no confidence', () => {
    const conf = (c: string) => parseVerdictReply(`{"verdict":"loop","confidence":${c}}`)?.confidence;
    expect(conf('"0.92"')).toBe(0.92);
    expect(conf('0')).toBe(0);
    expect(conf('95')).toBeNull();
    expect(conf('-0.1')).toBeNull();
    expect(conf('"high"')).toBeNull();
    expect(conf('"95%"')).toBeNull();
    expect(conf('null')).toBeNull();
    expect(conf('[0.9]')).toBeNull();
  });

  it('verdict words are read forgivingly but never guessed', () => {
    expect(parseVerdictReply('{"Verdict":" LOOP ","Confidence":0.9}')).toMatchObject({ verdict: 'loop', confidence: 0.9 });
    expect(parseVerdictReply('{"verdict":"not a loop","confidence":0.9}')).toMatchObject({ verdict: 'progress' });
    expect(parseVerdictReply('{"verdict":"maybe","confidence":0.9}')).toBeNull();
    expect(parseVerdictReply('{"verdict":true,"confidence":0.9}')).toBeNull();
  });

  it('two well-formed answers that disagree are no answer; agreeing ones are one', () => {
    expect(parseVerdictReply('{"verdict":"loop","confidence":0.9} or {"verdict":"progress","confidence":0.9}')).toBeNull();
    expect(parseVerdictReply('{"verdict":"loop","confidence":0.9}\n{"verdict":"loop","confidence":0.7}')).toMatchObject({ confidence: 0.9 });
  });

  it('braces inside strings, nested objects, a cut-off reply, single quotes', () => {
    expect(parseVerdictReply('{"verdict":"progress","confidence":0.9,"reason":"a } and a { in text","meta":{"x":1}}')).toMatchObject({
      verdict: 'progress',
      reason: 'a } and a { in text',
    });
    expect(parseVerdictReply('{"verdict": "loop", "confidence": 0.94, "reason": "the same par')).toMatchObject({ verdict: 'loop', confidence: 0.94 });
    expect(parseVerdictReply("{'verdict': 'progress', 'confidence': 0.9}")).toMatchObject({ verdict: 'progress', confidence: 0.9 });
  });

  it('garbage and non-strings are nothing', () => {
    for (const g of ['', 'loop', 'The agent is looping.', '{"verdict":', '{"', '<html>502</html>']) {
      expect(parseVerdictReply(g)).toBeNull();
    }
    expect(parseVerdictReply(null)).toBeNull();
    expect(parseVerdictReply({ verdict: 'loop' })).toBeNull();
  });

  it('the reason is kept short and free of control characters', () => {
    const r = parseVerdictReply(JSON.stringify({ verdict: 'loop', confidence: 0.9, reason: `a\u001b[31mb\n${'x'.repeat(1000)}` }));
    expect(r!.reason!.length).toBe(MAX_REASON_CHARS);
    expect(r!.reason).not.toMatch(/[\u0000-\u001f]/);
  });

  it('never throws, and any verdict it reads has a confidence in 0..1 or null', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.record({ verdict: fc.constantFrom('loop', 'progress', 'x'), confidence: fc.anything(), reason: fc.anything() }).map((o) => JSON.stringify(o) ?? ''),
        ),
        (reply) => {
          const v = parseVerdictReply(reply);
          if (v) {
            expect(['loop', 'progress']).toContain(v.verdict);
            if (v.confidence !== null) expect(v.confidence >= 0 && v.confidence <= 1).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
