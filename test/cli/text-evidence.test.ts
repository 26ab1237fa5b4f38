// The text items of issue 13 through the built binary, on the calibration fixtures that stand for
// them: exact evidence positions and an excerpt on a long reply (SPEC 0.2: "Evidence positions
// (`unit_chars`, `run_chars`, excerpt offsets) are exact on messages of any length"), and the
// three identical responses whose third steers ("`repeated_response` … the third steers").

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, parseLedger, ROOT, runCli } from './helpers.js';

const CAL = join(ROOT, 'fixtures', 'calibration');

beforeAll(() => ensureBuilt());

describe('text evidence through the CLI', { timeout: 60_000 }, () => {
  it('a 68k-character reply repeating one 35-word question 300 times: exact unit, run and excerpt', async () => {
    const file = join(CAL, 'openai', 'loop-long-question.json');
    const reply = (JSON.parse(readFileSync(file, 'utf8')) as { messages: { role: string; content: string | null }[] }).messages.find(
      (m) => m.role === 'assistant',
    )!.content!;
    const intro = 'Before I change anything I need one answer from you. ';
    const question = reply.slice(intro.length, reply.indexOf('?') + 1);
    expect(question.split(' ')).toHaveLength(35);

    const r = await runCli(['--format', 'json', '--excerpts', file]);
    expect(r.code).toBe(0);
    const entry = parseLedger(r).sessions[0]!.entries.find((e) => e.kind === 'exact_block')!;
    expect(entry.evidence).toMatchObject({
      unit_words: 35,
      unit_chars: question.length,
      repeats: 300,
      period_words: 35,
      run_words: 35 * 300,
      run_chars: 300 * (question.length + 1) - 1,
      offset: intro.length,
    });
    expect(entry.excerpts).toEqual([question.toLowerCase().slice(0, 80)]);
  });

  it('"I\'m doing well, thanks for asking." three times in one turn: the third steers', async () => {
    const r = await runCli(['--format', 'json', join(CAL, 'openai', 'loop-status-monologue.jsonl')]);
    const s = parseLedger(r).sessions[0]!;
    expect(s.entries.map((e) => [e.round, e.kind, e.intervention.enforce])).toEqual([[3, 'repeated_response', 'steer']]);
  });
});
