// Types for test/agents/harness.mjs (the bench script shares it, so it stays plain JavaScript).
import type { SpawnSyncReturns } from 'node:child_process';

export type AgentName = 'claude-code' | 'gemini' | 'codex';

export interface Call {
  name: string;
  input: Record<string, unknown>;
}
export interface Turn {
  text?: string;
  thinking?: string;
  calls?: Call[];
}
export interface ConversationView {
  modelTurns: number;
  results: string[];
  lastResults: string[];
  userTexts: string[];
}
export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, unknown>;
  body: any;
  kind?: 'model' | 'side';
  /** performance.now() when the request arrived. */
  at: number;
}
export type Script = (view: ConversationView, request: RecordedRequest) => Turn;

export interface Scratch {
  root: string;
  home: string;
  project: string;
  bin: string;
  state: string;
  codexHome: string;
}

export interface AgentRun {
  dir: Scratch;
  install: SpawnSyncReturns<string> | null;
  result: { code: number | null; signal: string | null; stdout: string; stderr: string; ms: number };
  requests: RecordedRequest[];
  modelRequests: RecordedRequest[];
  transcripts: string[];
  ledgers: string[];
  errorsLog: string;
}

export interface Entry {
  turn: number;
  round: number;
  detector: string;
  kind: string;
  strike?: { count: number } | null;
  intervention: { off: string; telemetry: string; enforce: string };
  after_stop: boolean;
}
export interface Decision {
  event: string;
  call_id: string | null;
  mode: string;
  action: 'none' | 'deny' | 'steer' | 'stop';
  entry?: Entry;
  refused?: boolean;
}

export const ROOT: string;
export const LOOPLEDGER: string;
export const SHELL: Record<AgentName, (command: string) => Call>;
export function scratch(agent: AgentName): Scratch;
export function runAgent(
  agent: AgentName,
  options: {
    script: Script;
    mode?: 'enforce' | 'telemetry' | null;
    prompt?: string;
    dir?: Scratch;
    env?: Record<string, string | undefined>;
    installArgs?: string[];
    agentArgs?: string[];
    timeout?: number;
    /** Codex only: lines appended to its config.toml (the `[otel]` table). */
    configLines?: string[];
    /** Called once `hook install` wrote the settings, before the agent starts (the latency bench swaps the command). */
    afterInstall?: (dir: Scratch) => void;
  },
): Promise<AgentRun>;
export function analyze(files: string[], extra?: string[]): any;
export function hookDecisions(ledgerFiles: string[]): Decision[];
export function verdictKey(entry: Entry): string;
export function liveAndStoreVerdicts(ledgerFiles: string[], store: string): { live: string[]; stored: string[] };
export interface CodexHook {
  key: string;
  eventName: string;
  command: string;
  currentHash: string;
  trustStatus: 'trusted' | 'untrusted' | 'modified' | 'managed';
}
export function codexHookList(dir: Scratch): Promise<CodexHook[]>;
