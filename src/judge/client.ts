// One arbitration over an OpenAI-compatible chat-completions endpoint, with Node's own fetch.
// Seed 002: "One provider attempt per arbitration, capped by a timeout"; "every unusable path
// returns Indeterminate". So: no retry (a 429 is an Indeterminate like any other failure), the
// timeout covers the whole exchange (connect, headers, body), and nothing here throws.

import type { JudgeUnusable } from '../ladder/judge.js';
import type { ChatMessage } from '../ladder/judge-prompt.js';
import { VERSION } from '../version.js';
import { type ParsedVerdict, parseVerdictReply } from './parse.js';
import type { JudgeConnection } from './settings.js';

/** A reply larger than this is not the small verdict asked for: read no further. */
export const MAX_REPLY_BYTES = 1024 * 1024;

export interface AskOutcome {
  /** The verdict read from the reply; null with `unusable` otherwise. */
  answer: ParsedVerdict | null;
  unusable?: JudgeUnusable;
  /** Tokens as the endpoint reported them (0 when it did not). */
  inputTokens: number;
  outputTokens: number;
  /** Set when the reply's token counts are no counts (negative, fractional past 2^53, 1e308): its price is unknown, not 0. */
  usageProblem?: string;
}

/**
 * The request body: the model and the messages only. Sampling options are left out on purpose:
 * reasoning models refuse `temperature` and `max_tokens`, and one refused parameter would make
 * every arbitration Indeterminate; reproducibility comes from the verdict cache instead.
 */
export function requestBody(model: string, messages: readonly ChatMessage[]): string {
  return JSON.stringify({ model, messages });
}

export async function askJudge(
  connection: Pick<JudgeConnection, 'url' | 'model' | 'apiKey' | 'timeoutMs'>,
  messages: readonly ChatMessage[],
): Promise<AskOutcome> {
  const failed = (unusable: JudgeUnusable, inputTokens = 0, outputTokens = 0): AskOutcome => ({
    answer: null,
    unusable,
    inputTokens,
    outputTokens,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': `loopledger/${VERSION}`,
  };
  if (connection.apiKey) headers['authorization'] = `Bearer ${connection.apiKey}`;
  const signal = AbortSignal.timeout(connection.timeoutMs);
  let text: string;
  let status: number;
  try {
    const response = await fetch(connection.url, {
      method: 'POST',
      headers,
      body: requestBody(connection.model, messages),
      signal,
      // A redirect would carry the prompt (and the key, same-origin) somewhere not configured.
      redirect: 'error',
    });
    status = response.status;
    text = await readCapped(response);
  } catch (e) {
    return failed(signal.aborted || isAbort(e) ? 'timeout' : 'network');
  }
  if (status < 200 || status > 299) return failed(`http_${status}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return failed('unparsable');
  }
  const { inputTokens, outputTokens, problem } = usageOf(body);
  const answer = parseVerdictReply(contentOf(body));
  const outcome: AskOutcome = answer ? { answer, inputTokens, outputTokens } : failed('unparsable', inputTokens, outputTokens);
  if (problem !== undefined) outcome.usageProblem = problem;
  return outcome;
}

function isAbort(e: unknown): boolean {
  const name = (e as { name?: unknown })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/** The body as text, at most MAX_REPLY_BYTES (a larger one is cut and will not parse). */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > MAX_REPLY_BYTES) {
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** `choices[0].message.content`: a string, or (some servers) an array of text parts. */
function contentOf(body: unknown): string | null {
  const choices = record(body)?.['choices'];
  const first = Array.isArray(choices) ? record(choices[0]) : null;
  const content = record(first?.['message'])?.['content'] ?? first?.['text'];
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        const p = record(part);
        return typeof p?.['text'] === 'string' ? p['text'] : '';
      })
      .join('');
  }
  return null;
}

/** A reported count; anything past 2^53 (1e308, Infinity written as a huge literal) is no count. */
function count(v: unknown): number | 'absurd' {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return 0;
  return v <= Number.MAX_SAFE_INTEGER ? Math.floor(v) : 'absurd';
}

/** `usage.prompt_tokens` / `completion_tokens` (or the Responses-style `input_tokens` / `output_tokens`). */
function usageOf(body: unknown): { inputTokens: number; outputTokens: number; problem?: string } {
  const usage = record(record(body)?.['usage']);
  if (!usage) return { inputTokens: 0, outputTokens: 0 };
  const input = usage['prompt_tokens'] ?? usage['input_tokens'];
  const output = usage['completion_tokens'] ?? usage['output_tokens'];
  const inputTokens = count(input);
  const outputTokens = count(output);
  if (inputTokens === 'absurd' || outputTokens === 'absurd') {
    // Not added to the run's counters: one such reply would make every total meaningless.
    const what = inputTokens === 'absurd' ? `${String(input)} prompt tokens` : `${String(output)} completion tokens`;
    return { inputTokens: 0, outputTokens: 0, problem: `the judge reported ${what}, which is no count` };
  }
  return { inputTokens, outputTokens };
}
