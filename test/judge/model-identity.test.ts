// Self-arbitration avoidance: seed 002's judge "skips any candidate that is the monitored turn's own
// model, including a second configuration entry for the same provider model". Offline there are
// only names, so the same provider model under another name must compare equal.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { providerModelId, sameProviderModel } from '../../src/ladder/model-identity.js';

describe('sameProviderModel', () => {
  it('the same provider model under another alias is the same', () => {
    const aliases: [string, string][] = [
      ['gpt-4o-mini', 'openai/gpt-4o-mini'],
      ['gpt-4o-mini', 'gpt-4o-mini-2024-07-18'],
      ['GPT-4o-mini', 'gpt-4o-mini'],
      ['claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4.5'],
      ['claude-sonnet-4-5', 'claude-sonnet-4-5-latest'],
      ['claude-3-5-sonnet-20240620', 'us.anthropic.claude-3-5-sonnet-20240620-v1:0'],
      ['claude-3-5-sonnet-20241022', 'claude-3-5-sonnet-v2@20241022'],
      ['gemini-2.5-flash', 'models/gemini-2.5-flash'],
      ['llama3.1', 'llama3.1:latest'],
      ['deepseek/deepseek-r1:free', 'deepseek-r1'],
    ];
    for (const [a, b] of aliases) expect(sameProviderModel(a, b), `${a} ~ ${b}`).toBe(true);
  });

  it('different models stay different', () => {
    const pairs: [string, string][] = [
      ['gpt-4o', 'gpt-4o-mini'],
      ['gpt-4.1', 'gpt-4.1-mini'],
      ['claude-sonnet-4-5', 'claude-haiku-4-5'],
      ['gemini-2.5-flash', 'gemini-2.5-flash-lite'],
      ['llama3.1:8b', 'llama3.1:70b'],
      ['deepseek-v3', 'deepseek-v2'],
      ['claude-3-5-sonnet', 'claude-3-7-sonnet'],
    ];
    for (const [a, b] of pairs) expect(sameProviderModel(a, b), `${a} vs ${b}`).toBe(false);
  });

  it('an unknown model is never the judge', () => {
    expect(sameProviderModel('gpt-4o', null)).toBe(false);
    expect(sameProviderModel(undefined, 'gpt-4o')).toBe(false);
    expect(sameProviderModel('', '')).toBe(false);
  });

  it('is symmetric, and the identity is idempotent', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(sameProviderModel(a, b)).toBe(sameProviderModel(b, a));
        expect(providerModelId(providerModelId(a))).toBe(providerModelId(a));
      }),
    );
  });
});
