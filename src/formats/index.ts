// Every supported format, in the order `loopledger formats` lists them.

import type { FormatName } from '../model/transcript.js';
import { anthropicAdapter } from './anthropic.js';
import { canonicalAdapter } from './canonical.js';
import { clineAdapter } from './cline.js';
import { chatgptAdapter } from './chatgpt.js';
import { claudeCodeAdapter } from './claude-code.js';
import { codexAdapter } from './codex.js';
import { droidAdapter } from './droid.js';
import { geminiAdapter } from './gemini.js';
import { kimiAdapter } from './kimi.js';
import { hermesAdapter } from './hermes.js';
import { miniSweAgentAdapter } from './mini-swe-agent.js';
import { copilotAdapter } from './copilot.js';
import { cursorAdapter } from './cursor.js';
import { openhandsAdapter } from './openhands.js';
import { piAdapter } from './pi.js';
import { qwenAdapter } from './qwen.js';
import { openclawAdapter } from './openclaw.js';
import { opencodeAdapter } from './opencode.js';
import { openaiAdapter } from './openai.js';
import { otelAdapter } from './otel/index.js';
import { sweAgentAdapter } from './swe-agent.js';
import { vscodeTasksAdapter } from './vscode-tasks.js';
import type { FormatAdapter, Probe } from './types.js';

/** One adapter per format name: a format without an adapter, or an adapter under a stray name, does not compile. */
const ADAPTER_BY_NAME = {
  'claude-code': claudeCodeAdapter,
  codex: codexAdapter,
  openai: openaiAdapter,
  anthropic: anthropicAdapter,
  gemini: geminiAdapter,
  chatgpt: chatgptAdapter,
  canonical: canonicalAdapter,
  'swe-agent': sweAgentAdapter,
  'mini-swe-agent': miniSweAgentAdapter,
  openhands: openhandsAdapter,
  otel: otelAdapter,
  opencode: opencodeAdapter,
  copilot: copilotAdapter,
  qwen: qwenAdapter,
  cline: clineAdapter,
  pi: piAdapter,
  droid: droidAdapter,
  openclaw: openclawAdapter,
  'vscode-tasks': vscodeTasksAdapter,
  cursor: cursorAdapter,
  kimi: kimiAdapter,
  hermes: hermesAdapter,
} as const satisfies Record<FormatName, FormatAdapter>;

/** The order detection tries them in: on a tie the earlier wins (test/registry.test.ts checks it names each format once). */
const DETECTION_ORDER: readonly FormatName[] = [
  'claude-code',
  'codex',
  // Before openai: a mini-swe-agent trajectory is also a valid chat, and wins a tie.
  'mini-swe-agent',
  'openai',
  'anthropic',
  'gemini',
  'chatgpt',
  'canonical',
  'swe-agent',
  'openhands',
  'otel',
  'opencode',
  'copilot',
  'qwen',
  'cline',
  'pi',
  'droid',
  'openclaw',
  'vscode-tasks',
  'cursor',
  'kimi',
  'hermes',
];

export const ADAPTERS: readonly FormatAdapter[] = DETECTION_ORDER.map((name) => ADAPTER_BY_NAME[name]);

export function adapterFor(name: FormatName, adapters: readonly FormatAdapter[] = ADAPTERS): FormatAdapter {
  const adapter = adapters.find((a) => a.name === name);
  if (!adapter) throw new Error(`unknown format ${name}`);
  return adapter;
}

/** An adapter's score for a probe; a detector that throws on an odd probe simply does not match. */
export function safeDetect(adapter: FormatAdapter, probe: Probe): number {
  try {
    const score = adapter.detect(probe);
    return Number.isFinite(score) && score > 0 ? score : 0;
  } catch {
    return 0;
  }
}

/** The most certain adapter and its score; on a tie the earlier adapter in the list wins. */
export function rankFormats(
  probe: Probe,
  adapters: readonly FormatAdapter[] = ADAPTERS,
): { adapter: FormatAdapter; score: number } | null {
  let best: { adapter: FormatAdapter; score: number } | null = null;
  for (const adapter of adapters) {
    const score = safeDetect(adapter, probe);
    if (score > (best?.score ?? 0)) best = { adapter, score };
  }
  return best;
}

/** The most certain adapter for this probe, or null when none recognizes it. */
export function detectFormat(probe: Probe, adapters: readonly FormatAdapter[] = ADAPTERS): FormatAdapter | null {
  return rankFormats(probe, adapters)?.adapter ?? null;
}
