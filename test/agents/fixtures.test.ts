// The agents' own transcripts, one per agent and recorded version (fixtures/agents/<agent>-<version>/,
// written by test/agents/record.mjs), must read as the run that wrote them: the counts below come
// from the recording script, not from the reader. Runs without the agents installed. A bumped pin
// records a new folder and keeps the old ones: users run older releases, and every one must read.
//
// The script (record.mjs): the model answers three times with `cat missing.txt` (the first time
// with thinking and a line of text), then with a final answer. The scripted servers bill each
// model request 100 + n input tokens (n = 1, 2, ... in order) and 10 output tokens, plus 5
// thinking tokens on the first turn where the API reports them apart. Under enforce the third call
// is refused before it runs: Claude Code and Gemini CLI end the run there (three requests);
// Codex reads the refusal as the call's output and asks once more (four requests, a final text).

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, ROOT } from '../cli/helpers.js';
import { AGENTS } from './install.mjs';

interface Counts {
  format: string;
  turns: number;
  rounds: number;
  toolCalls: number;
  usage: { requests: number; input_tokens: number; output_tokens: number; reasoning_tokens: number };
}

const EXPECTED: Record<keyof typeof AGENTS, Counts> = {
  'claude-code': {
    format: 'claude-code',
    turns: 1,
    rounds: 3,
    toolCalls: 3,
    // 101 + 102 + 103; Claude Code records thinking inside output_tokens, not apart.
    usage: { requests: 3, input_tokens: 306, output_tokens: 30, reasoning_tokens: 0 },
  },
  gemini: {
    format: 'gemini',
    turns: 1,
    rounds: 3,
    toolCalls: 3,
    // Gemini bills thoughts on top of the candidates: 3 × 10 + 5.
    usage: { requests: 3, input_tokens: 306, output_tokens: 35, reasoning_tokens: 5 },
  },
  codex: {
    format: 'codex',
    turns: 1,
    rounds: 4,
    toolCalls: 3,
    // 101 + 102 + 103 + 104; the Responses API counts reasoning inside output_tokens.
    usage: { requests: 4, input_tokens: 410, output_tokens: 40, reasoning_tokens: 5 },
  },
};

/** Every release recorded so far, oldest first; the last is the pin in install.mjs. */
const RECORDED: Record<keyof typeof AGENTS, string[]> = {
  'claude-code': ['2.1.328', '2.1.332'],
  gemini: ['0.61.0'],
  codex: ['0.169.0', '0.171.0'],
};

describe('fixtures/agents: the agents\' own transcripts at every recorded version', () => {
  it('the pinned version of each agent is recorded, and every recorded folder on disk is read below', () => {
    const onDisk = readdirSync(join(ROOT, 'fixtures', 'agents'));
    for (const [agent, versions] of Object.entries(RECORDED)) {
      expect(versions.at(-1), agent).toBe(AGENTS[agent as keyof typeof AGENTS].version);
      const folders = onDisk.filter((d) => d.startsWith(`${agent}-`) && /^\d/.test(d.slice(agent.length + 1)));
      expect(folders.sort(), agent).toEqual(versions.map((v) => `${agent}-${v}`).sort());
    }
  });

  for (const [agent, expected] of Object.entries(EXPECTED)) {
    for (const version of RECORDED[agent as keyof typeof AGENTS]) {
      const folder = join(ROOT, 'fixtures', 'agents', `${agent}-${version}`);

      it(`${agent} ${version}: one recording, read as the run that wrote it`, async () => {
        const files = readdirSync(folder).filter((f) => f.endsWith('.jsonl'));
        expect(files).toHaveLength(1);
        const r = await runCli(['analyze', join(folder, files[0]!), '--format', 'json']);
        expect(r.stderr).toBe('');
        const report = JSON.parse(r.stdout);
        expect(report.sessions).toHaveLength(1);
        const s = report.sessions[0];
        expect({ format: s.format, turns: s.turns, rounds: s.rounds, toolCalls: s.tool_calls }).toEqual({
          format: expected.format,
          turns: expected.turns,
          rounds: expected.rounds,
          toolCalls: expected.toolCalls,
        });
        expect(s.usage).toMatchObject(expected.usage);
        // The loop the live guard refused is the one analyze finds: noted at round 2, stopped at 3.
        const verdicts = s.entries
          .filter((e: { after_stop: boolean }) => !e.after_stop)
          .map((e: { round: number; kind: string; intervention: { enforce: string } }) => `${e.round} ${e.kind} ${e.intervention.enforce}`);
        expect(verdicts).toEqual(['2 repeated_batch noted', '3 repeated_batch stop']);
      });
    }
  }
});
