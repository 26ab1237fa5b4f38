// Every supported format, in the order `loopledger formats` lists them.

import type { FormatName } from '../model/transcript.js';
import { anthropicAdapter } from './anthropic.js';
import { canonicalAdapter } from './canonical.js';
import { chatgptAdapter } from './chatgpt.js';
import { claudeCodeAdapter } from './claude-code.js';
import { codexAdapter } from './codex.js';
import { geminiAdapter } from './gemini.js';
import { openaiAdapter } from './openai.js';
import type { FormatAdapter, Probe } from './types.js';

export const ADAPTERS: readonly FormatAdapter[] = [
  claudeCodeAdapter,
  codexAdapter,
  openaiAdapter,
  anthropicAdapter,
  geminiAdapter,
  chatgptAdapter,
  canonicalAdapter,
];

export function adapterFor(name: FormatName): FormatAdapter {
  const adapter = ADAPTERS.find((a) => a.name === name);
  if (!adapter) throw new Error(`unknown format ${name}`);
  return adapter;
}

/** The most certain adapter for this probe, or null when none recognizes it. */
export function detectFormat(probe: Probe): FormatAdapter | null {
  let best: FormatAdapter | null = null;
  let bestScore = 0;
  for (const adapter of ADAPTERS) {
    const score = adapter.detect(probe);
    if (score > bestScore) {
      best = adapter;
      bestScore = score;
    }
  }
  return best;
}
