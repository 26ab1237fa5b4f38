// Types for bench/cdp.mjs (a headless Chromium over the DevTools protocol on a pipe).

export function findChromium(env?: NodeJS.ProcessEnv): string | null;

export class Browser {
  static launch(bin: string, options?: { timeoutMs?: number }): Promise<Browser>;
  events: { method: string; params: any; sessionId?: string }[];
  stderr: string;
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<any>;
  waitFor(method: string, sessionId?: string): Promise<any>;
  newPage(options?: { width?: number; height?: number; dark?: boolean }): Promise<string>;
  load(sessionId: string, url: string): Promise<number>;
  evaluate<T = unknown>(sessionId: string, expression: string): Promise<T>;
  screenshot(sessionId: string, options?: { full?: boolean }): Promise<Buffer>;
  problems(sessionId: string): string[];
  requests(sessionId: string): string[];
  close(): Promise<void>;
}
