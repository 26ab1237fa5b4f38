// Every producer the otel reader knows, most specific first: an agent's own telemetry wins over the
// GenAI conventions it may also follow (Claude Code's spans carry gen_ai.* attributes too).

import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { geminiCli } from './gemini-cli.js';
import { genai } from './genai.js';
import type { OtelItem } from './items.js';
import { openinference } from './openinference.js';
import type { Producer } from './producer.js';

export const PRODUCERS: readonly Producer[] = [claudeCode, codex, geminiCli, openinference, genai];

/** The producer of a session: the first in PRODUCERS that any of its items matches; null when none does. */
export function producerOf(items: readonly OtelItem[]): Producer | null {
  let best = PRODUCERS.length;
  for (const item of items) {
    for (let i = 0; i < best; i++) {
      if (PRODUCERS[i]!.matches(item)) {
        best = i;
        break;
      }
    }
    if (best === 0) break;
  }
  return PRODUCERS[best] ?? null;
}
