// Types for bench/wild-shapes.mjs, so that tests written in TypeScript can measure a folder.

export interface AgentShapes {
  files: number;
  MB: number;
  'KB per MB': Record<string, number>;
  'rounds per MB': number;
  'loops (≥ 5 identical rounds)': { 'per 100 MB': number; 'median rounds': number; 'p90 rounds': number; 'max rounds': number };
  'labelled loop windows'?: { count: number; 'median rounds': number; 'max rounds': number };
  'sub-agent share %': number;
  'compactions per 100 MB': number;
  'tool result bytes p50/p90/p99/max': number[];
  'median file KB': number;
  'largest file MB': number;
}

export function shapesOf(dir: string, manifestPath?: string): Record<string, AgentShapes>;
