// Types for bench/home.mjs, so that tests written in TypeScript can generate a home folder.

export interface HomeSession {
  id: string;
  agent: 'claude-code' | 'codex' | 'gemini';
  /** Relative to the home folder. */
  path: string;
  /** Claude Code only: rounds, each counted once (resumed sessions hold a copy of their history). */
  rounds: number | null;
  parent: string | null;
  project: string;
  agentType?: string | null;
  resumed?: boolean;
}

export function generateHome(
  out: string,
  options?: { sessions?: number; seed?: number; scale?: number },
): Promise<{ home: string; manifest: HomeSession[] }>;
