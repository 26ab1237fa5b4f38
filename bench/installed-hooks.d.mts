// Types for bench/installed-hooks.mjs.
export const INSTALLED_HOOKS: Record<string, { events: string }>;
export interface InstalledHookTimes {
  agent: string;
  events: string;
  command: string;
  bare: number[];
  pre: number[];
  post: number[];
  recorded: number;
}
export function measureInstalledHook(agent: string, options?: { runs?: number; version?: string }): InstalledHookTimes;
export function installedHooksTable(rows: (InstalledHookTimes & { label: string })[]): string;
