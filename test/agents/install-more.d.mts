// Types for test/agents/install-more.mjs.
export const MORE_AGENTS: Record<'opencode' | 'kilo' | 'qwen' | 'copilot' | 'cline' | 'pi' | 'droid' | 'openclaw', { pkg: string; version: string; bin: string; node?: string; also?: string }>;
export function moreAgentDir(agent: string): string;
export function moreAgentBin(agent: string): string | undefined;
export function moreAgentNodeDir(agent: string): string | null;
export function ensureMoreAgent(agent: string): { bin: string; skip?: undefined } | { skip: string; bin?: undefined };
