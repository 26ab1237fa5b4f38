// The agents' suites' global setup: the pinned agents are installed once per run, here, behind the
// cache folder's lock (test/agents/install.mjs), never when a test file is merely loaded: `vitest
// list` and a run of other files install nothing. What could not be had is recorded beside the
// cache and read by the files' capability gates (test/helpers/capabilities.ts), which skip saying
// why, or fail under LOOPLEDGER_REQUIRE.

import { AGENTS, ensureAgent } from './install.mjs';

/** `vitest list` loads the files to name their tests and runs the global setups too: it installs nothing. */
const listing = (argv: readonly string[]): boolean => argv.slice(2).find((a) => !a.startsWith('-')) === 'list';

export default function setup(): void {
  if (listing(process.argv)) return;
  for (const agent of Object.keys(AGENTS)) {
    try {
      const r = ensureAgent(agent);
      if (r.skip) console.warn(`test/agents (${agent}): ${r.skip}`);
    } catch (e) {
      // An install that failed for another reason than the registry: the gate reports it per file.
      console.warn(`test/agents (${agent}): install failed: ${(e as Error).message}`);
    }
  }
}
