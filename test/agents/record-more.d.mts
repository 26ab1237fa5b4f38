// Types for test/agents/record-more.mjs.
export const FAILING: string;
export const SUCCEEDING: string;
export const PROMPT: string;
export function closingTurn(agent: string, text?: string): { text: string; calls?: { role: string; input: Record<string, unknown> }[] };
export function scenario(agent: string): (view: unknown) => unknown;
export function record(
  agent: string,
  out: string,
  options?: {
    during?: (store: string, stopped: () => boolean) => Promise<void>;
    before?: (run: { home: string; work: string; env: Record<string, string> }) => void;
    script?: (view: { modelTurns: number }) => unknown;
  },
): Promise<{ status: number | null; requests: number; home: string; bodies: string[]; modelTimes: number[] }>;
export function recordGuarded(
  agent: string,
  mode: string,
  options?: {
    stateDir?: (home: string) => string;
    after?: (run: { home: string; work: string; env: Record<string, string> }) => void;
    script?: (view: { modelTurns: number }) => unknown;
  },
): Promise<Awaited<ReturnType<typeof record>> & { out: string; ledgers: string[] }>;
