// The agents' own recordings of the same failing `cat missing.txt` three times, read with the
// read-only shell rules a user adds to observation_tools (docs/read-only.md): a failed read reads
// nothing, so its retry is refused at the third as any failing call is (issue 28 item 2).

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { audit } from '../../../src/run/audit.js';
import { createToolBatchDetector } from '../../../src/detect/tool-batch/index.js';
import { defaultToolBatchConfig } from '../../../src/detect/tool-batch/config.js';
import { Rounds } from './rounds.js';

const dir = path.resolve(import.meta.dirname, '../../../fixtures/agents');
const BROWSER = ['snapshot', 'screenshot', 'read_page', 'navigate', 'click'];
const config = { 'tool_batch.observation_tools': [...BROWSER, 'Bash(cat:*)', 'exec_command(cat:*)', 'run_shell_command(cat:*)'] };

describe('the same failing cat three times, with cat read-only by rule', () => {
  it('Claude Code 2.1.328, Codex 0.169.0 and Gemini CLI 0.61.0: stopped at the third, as when cat is not read-only', async () => {
    const files = [
      'claude-code-2.1.328/1e58e5f4-926e-44f6-aa09-4ab19af0dfff.jsonl',
      'codex-0.169.0/rollout-2026-12-02T04-18-58-01a234fa-24d5-7a20-ae16-6489f8368815.jsonl',
      // Gemini CLI records the failed shell call as a success ending "Exit Code: 1" (answerFailed reads it)
      'gemini-0.61.0/session-2026-12-02T04-18-a89c213f.jsonl',
    ];
    for (const file of files) {
      const withRules = (await audit([path.join(dir, file)], { jobs: 1, config })).sessions[0]!;
      const without = (await audit([path.join(dir, file)], { jobs: 1, config: { 'tool_batch.observation_tools': BROWSER } })).sessions[0]!;
      expect(withRules.outcome.enforce.stops, file).toEqual(without.outcome.enforce.stops);
      expect(withRules.outcome.enforce.stops.length, file).toBe(1);
      const stop = withRules.entries.find((e) => e.intervention.enforce === 'stop')!;
      expect(stop.evidence, file).toMatchObject({ read_only: false, read_only_reason: 'a read-only command whose last answer was an error' });
    }
  });

  it('the same cat answered alike three times, successfully, is seed 000\'s read-only poll: not refused', () => {
    const d = createToolBatchDetector({ ...defaultToolBatchConfig(), observationTools: [...BROWSER, 'Bash(cat:*)'] });
    const r = new Rounds();
    const cat = ['Bash', { command: 'cat notes.txt' }] as const;
    for (let i = 0; i < 15; i++) expect(d.observe(r.batch([cat], ['same text'])).findings.some((f) => f.loop)).toBe(false);
  });
});
