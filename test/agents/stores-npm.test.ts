// The stores of the agents installed from npm that loopledger reads offline only (issue 58): each
// pinned release runs the recording scenario against the scripted model server (three identical
// failing `cat` calls, one `echo`, a closing text), and the store it wrote, read back by the CLI,
// gives the counts and verdicts the fixture in fixtures/agents/ reads as.
// Needs the agents: `node test/agents/install-more.mjs pi droid` (.ci/run installs them); skipped, saying why, without.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { runCli } from '../cli/helpers.js';
import { record } from './record-more.mjs';

// Droid keeps no usage per response (only totals beside the transcript): its reading has none.
const AGENTS = [
  { agent: 'pi', format: 'pi', usage: { requests: 5, input_tokens: 5150, output_tokens: 100 } },
  { agent: 'droid', format: 'droid', usage: { requests: 0 } },
] as const;

for (const { agent, format, usage } of AGENTS) {
  describeWith(`agent:${agent}`, `${agent}'s store as the pinned release writes it`, () => {
    it('reads as one session of 5 rounds and 4 calls, the failing call noted at 2 and stopped at 3', { timeout: 120_000 }, async () => {
      const out = mkdtempSync(join(tmpdir(), `loopledger-${agent}-live-`));
      const run = await record(agent, out);
      expect(run).toMatchObject({ status: 0, requests: 5 });
      const r = await runCli(['analyze', join(out, 'store'), '--format', 'json']);
      const report = JSON.parse(r.stdout);
      expect(report.sessions).toHaveLength(1);
      const s = report.sessions[0];
      expect([s.format, s.agent, s.turns, s.rounds, s.tool_calls]).toEqual([format, agent, 1, 5, 4]);
      expect(s.usage).toMatchObject(usage);
      const verdicts = s.entries.filter((e: { after_stop: boolean }) => !e.after_stop).map((e: { round: number; kind: string; intervention: { enforce: string } }) => `${e.round} ${e.kind} ${e.intervention.enforce}`);
      expect(verdicts).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
    });
  });
}
