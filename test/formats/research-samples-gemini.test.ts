// Reads the real Gemini CLI files in ../shared/research-samples/gemini-cli (never copied into the
// repository) and pins what reading them by hand shows.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { detectFormat } from '../../src/formats/index.js';
import { geminiAdapter } from '../../src/formats/gemini.js';
import type { Probe } from '../../src/formats/types.js';
import { parseWith } from '../helpers/record.js';

const repoRoot = path.resolve(__dirname, '../..');
const samples = path.resolve(repoRoot, '../shared/research-samples');
const dir = path.join(samples, 'gemini-cli');

/** A pretty-printed file is one document; otherwise one JSON value per line. */
function load(file: string): { mode: 'jsonl' | 'document'; text: string; probe: Probe } {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  try {
    const records = lines.map((l) => JSON.parse(l) as unknown);
    return { mode: 'jsonl', text, probe: { mode: 'jsonl', fileName: file, records: records.slice(0, 40) } };
  } catch {
    return { mode: 'document', text, probe: { mode: 'document', fileName: file, value: JSON.parse(text) as unknown } };
  }
}

describeWith('research-samples', 'research samples: gemini-cli', () => {
  it('every file there is detected as gemini', () => {
    const files = fs.readdirSync(dir).filter((f) => /\.jsonl?$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(detectFormat(load(f).probe)?.name, f).toBe('gemini');
  });

  it('jsonl_v040: one session, one turn, two rounds, one answered shell call, usage', () => {
    const { mode, text } = load('jazzyalex_agent-sessions_jsonl_v040.jsonl');
    expect(mode).toBe('jsonl');
    const { sessions, skipped } = parseWith(geminiAdapter, text, { path: 'jazzyalex_agent-sessions_jsonl_v040.jsonl' });
    expect(skipped).toEqual([]);
    expect(sessions).toHaveLength(1);
    const s = sessions[0]!;
    expect(s.info.id).toBe('gemini_stage0_jsonl');
    expect(s.turns).toEqual([1]);
    expect(s.rounds).toHaveLength(2);
    const [call, reply] = s.rounds;
    expect(call!.line).toBe(4);
    expect(call!.calls).toEqual([
      { id: 'run_shell_command_stage0', name: 'run_shell_command', arguments: { command: 'ls -F', description: 'List files in the current directory.' } },
    ]);
    expect(call!.answers).toHaveLength(1);
    expect(call!.answers![0]!.content).toContain('README.md');
    expect(call!.usage).toEqual({ inputTokens: 11855, outputTokens: 81, reasoningTokens: 0, cacheReadTokens: 0 });
    expect(call!.model).toBe('gemini-3-flash-preview');
    expect(reply!.text).toBe('Hello! I listed the files.');
    expect(reply!.calls).toEqual([]);
  });

  it('large.json (legacy): one session, two turns, four rounds (gemini and model messages), two answered calls', () => {
    const { mode, text } = load('jazzyalex_agent-sessions_large.json');
    expect(mode).toBe('document');
    const { sessions, skipped } = parseWith(geminiAdapter, text, { mode: 'document', path: 'jazzyalex_agent-sessions_large.json' });
    expect(skipped).toEqual([]);
    expect(sessions).toHaveLength(1);
    const s = sessions[0]!;
    expect(s.info.id).toBe('session-2025-12-16T23-47-b4f17607');
    // the "info" record (Request cancelled.) is a client notice, not a turn or a round
    expect(s.turns).toEqual([1, 2]);
    expect(s.rounds.map((r) => [r.turn, r.text, r.calls.length])).toEqual([
      [1, '', 1],
      [1, '', 1],
      [1, 'Captured multiline output.', 0],
      [2, 'Ok', 0],
    ]);
    const calls = s.rounds.flatMap((r) => r.calls);
    expect(calls.map((c) => c.id)).toEqual(['run_shell_command-1', 'run_shell_command-2']);
    expect(s.rounds[0]!.thinking).toEqual([{ text: 'Placeholder thoughts for schema coverage.', opaque: false }]);
    expect(s.rounds[0]!.usage).toEqual({ inputTokens: 100, outputTokens: 10, reasoningTokens: 0, cacheReadTokens: 0 });
    expect(s.rounds[1]!.answers![0]!.content).toContain('Exit Code: 1');
    expect(s.rounds.slice(0, 2).every((r) => r.answers?.length === 1)).toBe(true);
  });
});
