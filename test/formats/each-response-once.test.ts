// Issue 54, item 2: "every format reads each model response once, whatever the number of records
// that carry it". On the real Claude Code and Gemini CLI recordings, the thinking blocks the
// rounds carry are counted against the file itself: Claude Code's distinct (message.id, block)
// pairs (one line per content block, usage repeated), Gemini's thoughts of the last version of
// each message (JSONL rewrites a message under its id). Codex: test/formats/codex-copies.test.ts.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { ingestFile } from '../../src/formats/ingest.js';
import { RecordingSink } from '../helpers/record.js';

const shared = path.resolve(import.meta.dirname, '../../../shared');
const files = (dir: string) => (existsSync(path.join(shared, dir)) ? readdirSync(path.join(shared, dir)).map((f) => path.join(shared, dir, f)) : []);

async function thinkingBlocks(file: string): Promise<number> {
  const sink = new RecordingSink();
  await ingestFile(file, sink);
  return sink.sessions.flatMap((s) => s.rounds).reduce((n, r) => n + r.thinking.length, 0);
}

type Rec = Record<string, unknown>;
const parseLines = (text: string): Rec[] =>
  text.split('\n').flatMap((l) => {
    try {
      const v = JSON.parse(l) as unknown;
      return v !== null && typeof v === 'object' ? [v as Rec] : [];
    } catch {
      return [];
    }
  });

const claude = [...files('recordings/real/claude-code'), ...files('research-samples/claude-code')].filter((f) => /vct_claude_code|fasthooks_sample_main/.test(f));
describeWith('shared-recordings', 'claude code recordings: each thinking block once', () => {
  it('finds the recordings', () => expect(claude.length).toBeGreaterThan(0));
  it.each(claude.map((f) => [path.basename(f), f]))('%s', async (_name, file) => {
    const pairs = new Set<string>();
    for (const r of parseLines(readFileSync(file, 'utf8'))) {
      const m = r.message as Rec | undefined;
      if (r.type !== 'assistant' || !m || !Array.isArray(m.content)) continue;
      for (const c of m.content as Rec[]) if (c.type === 'thinking') pairs.add(`${String(m.id)}\n${String(c.thinking)}`);
    }
    expect(pairs.size).toBeGreaterThan(0);
    expect(await thinkingBlocks(file)).toBe(pairs.size);
  });
});

const gemini = [...files('recordings/real/gemini'), ...files('research-samples/gemini-cli')];
describeWith('shared-recordings', 'gemini recordings: each thought once', () => {
  it('finds the recordings', () => expect(gemini.length).toBeGreaterThan(0));
  it.each(gemini.map((f) => [path.basename(f), f]))('%s', async (_name, file) => {
    const text = readFileSync(file, 'utf8');
    let messages: Rec[];
    try {
      const doc = JSON.parse(text) as Rec | Rec[];
      messages = Array.isArray(doc) ? doc : ((doc.messages as Rec[] | undefined) ?? []);
    } catch {
      const byId = new Map<string, Rec>();
      for (const r of parseLines(text)) if (r.type === 'gemini' && typeof r.id === 'string') byId.set(r.id, r);
      messages = [...byId.values()];
    }
    const thoughts = messages.filter((m) => m.type === 'gemini').reduce((n, m) => n + (Array.isArray(m.thoughts) ? m.thoughts.length : 0), 0);
    expect(await thinkingBlocks(file)).toBe(thoughts);
  });
});
