// Types for test/agents/install.mjs.
export const AGENTS: Record<'claude-code' | 'gemini' | 'codex', { pkg: string; version: string; bin: string }>;
export function cacheRoot(): string;
export function agentDir(agent: string): string;
export function agentBin(agent: string): string | undefined;
export function ensureAgent(agent: string): { bin: string; skip?: undefined } | { skip: string; bin?: undefined };
export function installedVersion(agent: string): string | undefined;
export function installSkipReason(agent: string): string | undefined;
export function withInstallLock<T>(fn: () => T, options?: { waitMs?: number }): T;
