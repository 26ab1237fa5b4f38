// Shared by the judge tests: a small OpenAI-compatible server on 127.0.0.1 that records every
// request and answers as each test says, and the "consecutive characters" measure.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body, when it was JSON. */
  json: { model?: string; messages?: { role: string; content: string }[] } | null;
  /** The user message: the evidence the judge was shown. */
  prompt: string;
}

export interface Reply {
  status?: number;
  /** Sent as is (garbage); otherwise `json`. */
  raw?: string;
  json?: unknown;
  /** Wait this long before answering (slow). */
  delayMs?: number;
}

export interface JudgeServer {
  /** The base URL, as `judge.endpoint` takes it (…/v1). */
  url: string;
  requests: RecordedRequest[];
  /** The most requests that were being answered at once. */
  maxInFlight: number;
  close(): Promise<void>;
}

/** A chat-completions reply whose content is `content`. */
export function completion(content: string, usage = { prompt_tokens: 310, completion_tokens: 24 }): Reply {
  return {
    json: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

export const confirming = (confidence = 0.96) =>
  completion(JSON.stringify({ verdict: 'loop', confidence, reason: 'the same reasoning restated without new information' }));
export const clearing = (confidence = 0.95) =>
  completion('```json\n' + JSON.stringify({ verdict: 'progress', confidence, reason: 'each block names a different file' }) + '\n```');

export async function startJudgeServer(answer: (req: RecordedRequest, index: number) => Reply | Promise<Reply>): Promise<JudgeServer> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  const state = { maxInFlight: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      const body = Buffer.concat(chunks).toString('utf8');
      let json: RecordedRequest['json'] = null;
      try {
        json = JSON.parse(body) as RecordedRequest['json'];
      } catch {
        json = null;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json,
        prompt: json?.messages?.find((m) => m.role === 'user')?.content ?? '',
      };
      const index = requests.push(recorded) - 1;
      void Promise.resolve(answer(recorded, index)).then(async (reply) => {
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        inFlight -= 1;
        if (res.destroyed) return;
        res.statusCode = reply.status ?? 200;
        res.setHeader('content-type', reply.raw !== undefined ? 'text/plain' : 'application/json');
        res.end(reply.raw ?? JSON.stringify(reply.json ?? {}));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get maxInFlight() {
      return state.maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Lowercased, whitespace collapsed: how detectors normalize excerpts, so the comparison is fair. */
function normalizeForRun(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ');
}

/**
 * The longest run of consecutive characters (code points) of `source` found in `haystack`, both
 * normalized. Binary search on the length: a run of n implies runs of every shorter length.
 */
export function longestSharedRun(source: string, haystack: string): number {
  const src = [...normalizeForRun(source)];
  const hay = normalizeForRun(haystack);
  const has = (n: number) => {
    for (let i = 0; i + n <= src.length; i++) if (hay.includes(src.slice(i, i + n).join(''))) return true;
    return false;
  };
  let lo = 0;
  let hi = src.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (has(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
