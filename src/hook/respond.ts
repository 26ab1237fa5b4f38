// What the hook prints, in each agent's own contract (its folder under src/agents renders it).
// Nothing at all (exit 0, empty stdout) means "carry on"; every answer is sent only under enforce.

import type { EventKind, HookCall, Verdict } from './contract.js';
import { type Agent, hookOf } from './payload.js';

export type { Verdict } from './contract.js';

/**
 * The stdout JSON for `verdict` on `eventName`, or null when there is nothing to say (or the
 * contract has no way to say it here; main.ts then keeps a reminder for the next event that can).
 */
export function render(agent: Agent, eventName: string, kind: EventKind, verdict: Verdict, call: HookCall | null = null): string | null {
  if (verdict.deny === null && verdict.stop === null && verdict.context === null) return null;
  const out = hookOf(agent).render(eventName, kind, verdict, call);
  return out === null ? null : JSON.stringify(out);
}

/** Whether `kind` events of `agent` can carry context to the model (else it waits for one that can). */
export function canCarryContext(agent: Agent, kind: EventKind): boolean {
  return hookOf(agent).canCarryContext(kind);
}
