// bench/wild-shapes.mjs (issue 59, item 1) measures what the real-shaped bench corpus is made to:
// on hand-written stores whose loops, sub-agents, compactions and results are known, its figures
// are those, and the figures committed for the wild corpus are what it prints (numbers only).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shapesOf } from '../../bench/wild-shapes.mjs';

const dir = mkdtempSync(join(tmpdir(), 'wild-shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (path: string, lines: object[]) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return statSync(path).size;
};

/** A Claude Code round: one assistant line with a tool call, one user line with its result. */
function claudeRound(n: number, command: string, result: string, extra: object = {}) {
  const base = { sessionId: 's1', isSidechain: false, ...extra };
  return [
    { ...base, type: 'assistant', uuid: `a${n}`, message: { id: `msg${n}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name: 'Bash', input: { command } }] } },
    { ...base, type: 'user', uuid: `u${n}`, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: result }] }, toolUseResult: { stdout: result } },
  ];
}

describe('bench/wild-shapes.mjs', () => {
  // Main session: 7 identical rounds (a loop), 1 other, a compaction; a sub-agent file of 2 rounds.
  const main = [
    ...Array.from({ length: 7 }, (_, i) => claudeRound(i, 'npm test', 'FAIL')).flat(),
    ...claudeRound(7, 'ls', 'x'.repeat(1000)),
    { sessionId: 's1', type: 'system', subtype: 'compact_boundary', uuid: 'c1' },
    { sessionId: 's1', type: 'user', uuid: 'c2', isCompactSummary: true, message: { role: 'user', content: 'summary' } },
  ];
  const mainBytes = write(join(dir, 'claude', 'projects', 'p', 's1.jsonl'), main);
  const subLines = [0, 1].flatMap((i) => claudeRound(10 + i, `cat f${i}`, 'y', { isSidechain: true, agentId: 'a1' }));
  const subBytes = write(join(dir, 'claude', 'projects', 'p', 's1', 'subagents', 'agent-a1.jsonl'), subLines);
  // Codex: 5 identical shell rounds, then a compaction.
  const call = (i: number) => [
    { type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: 'why' }], encrypted_content: 'gAAA' } },
    { type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: '{"command":["cargo","test"]}', call_id: `c${i}` } },
    { type: 'response_item', payload: { type: 'function_call_output', call_id: `c${i}`, output: 'error' } },
  ];
  const codexBytes = write(join(dir, 'codex', 'sessions', 'rollout-1.jsonl'), [
    { type: 'session_meta', payload: { id: 'r1' } },
    ...Array.from({ length: 5 }, (_, i) => call(i)).flat(),
    { type: 'compacted', payload: { message: '', replacement_history: [] } },
  ]);

  it('counts a Claude Code store: rounds, the loop, the sub-agent share, the compaction, the result sizes', () => {
    const s = shapesOf(join(dir, 'claude'))['claude-code']!;
    const mb = (mainBytes + subBytes) / 1048576;
    expect(s.files).toBe(2);
    expect(s['rounds per MB']).toBeCloseTo(10 / mb, 0);
    expect(s['loops (≥ 5 identical rounds)']).toEqual({ 'per 100 MB': +(100 / mb).toFixed(1), 'median rounds': 7, 'p90 rounds': 7, 'max rounds': 7 });
    expect(s['sub-agent share %']).toBe(+((100 * subBytes) / (mainBytes + subBytes)).toFixed(1));
    // A boundary and its summary are one compaction.
    expect(s['compactions per 100 MB']).toBe(+(100 / mb).toFixed(1));
    expect(s['tool result bytes p50/p90/p99/max']).toEqual([4, 1000, 1000, 1000]);
  });

  it('counts a Codex rollout: a round per response, the loop of 5, the compacted line', () => {
    const s = shapesOf(join(dir, 'codex')).codex!;
    const mb = codexBytes / 1048576;
    expect(s['rounds per MB']).toBeCloseTo(5 / mb, 0);
    expect(s['loops (≥ 5 identical rounds)']['max rounds']).toBe(5);
    expect(s['compactions per 100 MB']).toBe(+(100 / mb).toFixed(1));
    expect(s['KB per MB'].encryptedReasoning).toBeGreaterThan(0);
  });

  it('a run of 4 identical rounds is no loop', () => {
    write(join(dir, 'four', 's.jsonl'), Array.from({ length: 4 }, (_, i) => claudeRound(i, 'npm test', 'FAIL')).flat());
    expect(shapesOf(join(dir, 'four'))['claude-code']!['loops (≥ 5 identical rounds)']['max rounds']).toBe(0);
  });

  it('the committed targets hold numbers only, per agent the generator makes', () => {
    const targets = JSON.parse(readFileSync(new URL('../../bench/wild-shapes.json', import.meta.url), 'utf8')) as object;
    expect(Object.keys(targets).sort()).toEqual(['claude-code', 'codex']);
    const leaves = (v: unknown): unknown[] => (v !== null && typeof v === 'object' ? Object.values(v).flatMap(leaves) : [v]);
    expect(leaves(targets).every((v) => typeof v === 'number')).toBe(true);
  });
});
