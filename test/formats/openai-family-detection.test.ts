// Every bundled fixture is detected as the format of its folder, whoever wrote it: the
// adapters here must not claim Claude Code or Codex files, nor each other's.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { ADAPTERS, detectFormat } from '../../src/formats/index.js';
import type { Probe } from '../../src/formats/types.js';
import { isConversationDir } from '../../src/read/conversation-dir.js';
import { ConcatenatedValues } from '../../src/read/concatenated.js';

const fixturesDir = path.resolve(__dirname, '../../fixtures');

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  // An OpenHands conversation folder is one input (read as a whole), not a file per event.
  if (isConversationDir(fs.readdirSync(dir, { withFileTypes: true }))) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : /\.jsonl?$/.test(e.name) ? [p] : [];
  });
}

function probeOf(file: string): Probe {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  try {
    return { mode: 'jsonl', fileName: path.basename(file), records: lines.slice(0, 40).map((l) => JSON.parse(l) as unknown) };
  } catch {
    try {
      return { mode: 'document', fileName: path.basename(file), value: JSON.parse(text) as unknown };
    } catch {
      // Objects one after another (an SDK's trace dump): the reader probes them as records, as here.
      const split = new ConcatenatedValues(1 << 26);
      const parts = text.split(/\r?\n/).flatMap((l, i) => split.push(l, i + 1));
      const last = split.end();
      if (last) parts.push(last);
      const records = parts.flatMap((p) => ('text' in p ? [JSON.parse(p.text) as unknown] : []));
      return { mode: 'jsonl', fileName: path.basename(file), records: records.slice(0, 40) };
    }
  }
}

const names = new Set(ADAPTERS.map((a) => a.name));
const files = walk(fixturesDir).filter((f) => names.has(path.relative(fixturesDir, f).split(path.sep)[0] as never));

describe('detection across all bundled fixtures', () => {
  it('finds fixtures of the five message-list formats', () => {
    const formats = new Set(files.map((f) => path.relative(fixturesDir, f).split(path.sep)[0]));
    for (const f of ['openai', 'anthropic', 'gemini', 'chatgpt', 'canonical']) expect(formats).toContain(f);
  });

  for (const file of files) {
    const expected = path.relative(fixturesDir, file).split(path.sep)[0]!;
    it(`${path.relative(fixturesDir, file)} → ${expected}`, () => {
      const probe = probeOf(file);
      expect(detectFormat(probe)?.name).toBe(expected);
      const mine = ['openai', 'anthropic', 'gemini', 'chatgpt', 'canonical'];
      // A format this file is not scores strictly below the right one, and mine score 0 on
      // other helpers' formats.
      for (const a of ADAPTERS) {
        if (a.name === expected) continue;
        // A mini-swe-agent trajectory is an OpenAI message list by construction: openai may read
        // it, but scores below the reader that knows it.
        // A VS Code task folder's messages are an Anthropic message list: anthropic reads them at 0.9, the task reader outbids it.
        if (expected === 'vscode-tasks' && a.name === 'anthropic') expect(a.detect(probe)).toBeLessThan(ADAPTERS.find((b) => b.name === expected)!.detect(probe));
        // So is a Kimi CLI context file (role/content lines, OpenAI tool_calls, between Kimi's own `_` lines).
        else if ((expected === 'mini-swe-agent' || expected === 'kimi') && a.name === 'openai') expect(a.detect(probe)).toBeLessThan(ADAPTERS.find((b) => b.name === expected)!.detect(probe));
        else if (mine.includes(a.name) && !mine.includes(expected)) expect(a.detect(probe), a.name).toBe(0);
      }
    });
  }
});

const samples = path.resolve(__dirname, '../../../shared/research-samples');
const foreign = ['claude-code', 'codex'].flatMap((d) => walk(path.join(samples, d)));

describeWith('research-samples', 'research samples of other formats are not claimed', () => {
  it('finds the Claude Code and Codex samples', () => expect(foreign.length).toBeGreaterThan(0));
  for (const file of foreign) {
    it(path.relative(samples, file), () => {
      const probe = probeOf(file);
      for (const a of ADAPTERS.filter((x) => ['openai', 'anthropic', 'gemini', 'chatgpt', 'canonical'].includes(x.name))) {
        expect(a.detect(probe), a.name).toBe(0);
      }
    });
  }
});
