import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, scratch } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('--output-file never overwrites an input', () => {
  it('SPEC "never modify an input": --output-file naming a transcript is exit 2 and the transcript is untouched', async () => {
    const dir = scratch();
    try {
      const text = readFileSync('fixtures/codex/rollout-2026-02-21T10-02-47-0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15.jsonl', 'utf8');
      const input = dir.write('run.jsonl', text);
      const result = await runCli([input, '--output-file', input, '--jobs', '1']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/refusing to overwrite/);
      expect(readFileSync(input, 'utf8')).toBe(text);
    } finally {
      dir.cleanup();
    }
  });
});
