// Agents that count a request's prompt without its cached part (OpenCode, Cline): the prompt the
// model read is the three added up, which is what the model's Usage and a price need.

import type { Usage } from '../../model/transcript.js';

export function usageWithCache(input: number | null, output: number | null, reasoning: number | null, cacheRead: number, cacheWrite: number): Partial<Usage> {
  return {
    inputTokens: input === null ? null : input + cacheRead + cacheWrite,
    outputTokens: output,
    reasoningTokens: reasoning,
    ...(cacheRead > 0 ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
  };
}
