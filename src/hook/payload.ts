// What each agent sends on stdin, read into one shape by the agent's own reader (its folder under
// src/agents declares it). Every field is read defensively: an agent version that adds, renames or
// drops a field must degrade to "nothing to decide", never to a crash (and a crash would still
// fail open: see main.ts).

import { AGENTS as REGISTRY } from '../agents/index.js';
import type { AgentName } from '../agents/types.js';
import type { FormatName } from '../model/transcript.js';
import { type AgentHook, type HookEvent, PayloadError } from './contract.js';
import { isRecord } from '../is-record.js';

export { PayloadError, type HookCall, type HookEvent } from './contract.js';

export type Agent = AgentName;

/** The agents with a live guard, in the registry's order. */
export const AGENTS: readonly Agent[] = REGISTRY.filter((a) => a.hook !== undefined).map((a) => a.name);

/** The format adapter that reads the agent's transcript. */
export function formatOf(agent: Agent): FormatName {
  return REGISTRY.find((a) => a.name === agent)!.format;
}

/** The agent's hook contract. */
export function hookOf(agent: Agent): AgentHook {
  const hook = REGISTRY.find((a) => a.name === agent)?.hook;
  if (hook === undefined) throw new Error(`no live guard for ${agent}`);
  return hook;
}

/** Parse one payload. Throws PayloadError on anything that is not a usable hook payload. */
export function parsePayload(agent: Agent, text: string, env: NodeJS.ProcessEnv = process.env): HookEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PayloadError(`stdin is not JSON (${(e as Error).message})`);
  }
  if (!isRecord(value)) throw new PayloadError('stdin is not a JSON object');
  return hookOf(agent).read(value, env);
}
