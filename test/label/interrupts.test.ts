// The user's own interrupts (issue 28.5, 33.3). SPEC "0.3 additions": "The model reads a user's
// interrupts (Claude Code `[Request interrupted by user]` and `… for tool use]`, Codex
// `turn_aborted`, and the Gemini CLI and OpenHands equivalents). Per session `interrupts: [{turn,
// round, after_repeat, finding}]`. `sweep --labels interrupts` scores each value against them."
// The fixtures are the bundled loops with an interrupt added the way each agent writes one (the
// markers as found in ../shared/recordings and ../shared/research-samples).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import { claudeCode, ensureBuilt, repeat, ROOT, runCli, scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-interrupts-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

interface Interrupt {
  turn: number;
  round: number;
  after_repeat: boolean;
  finding: { detector: string; kind: string; turn: number; round: number } | null;
}
interface Session {
  id: string;
  interrupts?: Interrupt[];
  outcome: { enforce: { stops: { turn: number; round: number }[] } };
}

async function sessionsOf(file: string, ...args: string[]): Promise<Session[]> {
  const r = await runCli([file, '--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { sessions: Session[] }).sessions;
}

const fixture = (path: string) => readFileSync(join(ROOT, 'fixtures', path), 'utf8');
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

/** A Claude Code loop: the same failing test four times, then Esc during the fifth call. */
function claudeLoop(): string {
  const id = '0c1d2e3f-0000-4000-8000-0000000000aa';
  const records = lines(claudeCode(repeat([['Bash', { command: 'npm test' }]], 4, 'same'), id)).map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = records[records.length - 1]!;
  const esc = { ...last, uuid: '00000000-0000-4000-8000-0000000000ff', parentUuid: last['uuid'], type: 'user', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] } };
  return [...records, esc].map((r) => JSON.stringify(r)).join('\n') + '\n';
}

/** The bundled Codex loop with Esc pressed before the user's second message (as Codex 0.12x writes it). */
function codexLoop(): string {
  const all = lines(fixture('codex/rollout-2026-02-20T16-41-09-0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37.jsonl'));
  const prompts = all.flatMap((l, i) => (/"type":"event_msg","payload":\{"type":"user_message"/.test(l) ? [i] : []));
  // Before the second prompt's first copy (Codex writes it as a response item, then as an event).
  let at = prompts[1]!;
  while (at > 0 && !/"type":"message","role":"user"/.test(all[at - 1]!)) at--;
  at--;
  const aborted = JSON.stringify({ timestamp: '2026-02-20T16:42:00.000Z', type: 'event_msg', payload: { type: 'turn_aborted', turn_id: '0199a1c4-7e21-7b30-9d4f-000000000001', reason: 'interrupted' } });
  const replaced = JSON.stringify({ timestamp: '2026-02-20T16:42:00.000Z', type: 'event_msg', payload: { type: 'turn_aborted', reason: 'replaced' } });
  return [...all.slice(0, at), aborted, ...all.slice(at), replaced].join('\n') + '\n';
}

describe('interrupts in the model and the ledger', () => {
  it('Claude Code: "[Request interrupted by user for tool use]" right after a repeat', async () => {
    const file = tmp.write('claude/esc.jsonl', claudeLoop());
    const [s] = await sessionsOf(file);
    expect(s!.interrupts).toEqual([{ turn: 1, round: 4, after_repeat: true, finding: { detector: 'tool_batch', kind: 'repeated_batch', turn: 1, round: 4 } }]);
    const table = await runCli([file]);
    expect(table.stdout).toContain(`interrupted: you stopped it at round 4; Enforce would have at round 3 (1 round earlier)`);
  });

  it('Codex: turn_aborted (interrupted) is one; a turn replaced by a new prompt is none', async () => {
    const [s] = await sessionsOf(tmp.write('codex/rollout-esc.jsonl', codexLoop()));
    // Round 5 is the agent's closing message, the one running when Esc came.
    expect(s!.interrupts).toEqual([{ turn: 1, round: 5, after_repeat: true, finding: { detector: 'tool_batch', kind: 'repeated_batch', turn: 1, round: 4 } }]);
  });

  it('Gemini CLI: the "Request cancelled." notice, and a cancelled tool call, once per round', async () => {
    const jsonl = `${fixture('gemini/session-2026-03-02T10-15-6f1c2d3e.jsonl').trimEnd()}\n${JSON.stringify({ id: 'g-6', timestamp: '2026-03-02T10:21:05.000Z', type: 'info', content: 'Request cancelled.' })}\n`;
    const [s] = await sessionsOf(tmp.write('gemini/session-esc.jsonl', jsonl));
    // The latest finding before it: the reasoning repeats in round 4 too, after the batch.
    expect(s!.interrupts).toEqual([{ turn: 1, round: 5, after_repeat: true, finding: { detector: 'thinking', kind: 'thinking_stagnation', turn: 1, round: 4 } }]);

    const doc = JSON.parse(fixture('gemini/session-2026-03-01T09-00-9a8b7c6d.json')) as { messages: Record<string, unknown>[] };
    doc.messages.push(
      { id: 'm-x', timestamp: '2026-03-01T09:03:00.000Z', type: 'gemini', content: '', model: 'gemini-2.5-flash', toolCalls: [{ id: 'run-1', name: 'run_shell_command', args: { command: 'make deploy' }, status: 'cancelled' }] },
      { id: 'm-y', timestamp: '2026-03-01T09:03:01.000Z', type: 'info', content: 'Request cancelled.' },
    );
    const [calm] = await sessionsOf(tmp.write('gemini/session-cancel.json', JSON.stringify(doc)));
    expect(calm!.interrupts).toHaveLength(1);
    expect(calm!.interrupts![0]).toMatchObject({ turn: 2, after_repeat: false, finding: null });
  });

  it('OpenHands: a V1 PauseEvent and a V0 pause; the window is interrupts.after_repeat_rounds', async () => {
    // The bundled V1 loop already ends in the user's pause.
    const [a] = await sessionsOf('fixtures/openhands/events-backup-check.jsonl');
    expect(a!.interrupts).toEqual([{ turn: 1, round: 4, after_repeat: true, finding: { detector: 'tool_batch', kind: 'repeated_batch', turn: 1, round: 4 } }]);

    const events = JSON.parse(fixture('openhands/trajectory-date-parser.json')) as Record<string, unknown>[];
    events.splice(events.length - 1, 0, { id: 99, timestamp: '2025-03-04T10:00:22', source: 'environment', message: '', observation: 'agent_state_changed', content: '', extras: { agent_state: 'paused' } });
    const v0 = tmp.write('openhands/trajectory-paused.json', JSON.stringify(events));
    // The last finding is at round 4, the pause at round 8: five rounds is more than three.
    const [b] = await sessionsOf(v0);
    expect(b!.interrupts).toEqual([{ turn: 1, round: 8, after_repeat: false, finding: null }]);
    const [c] = await sessionsOf(v0, '--set', 'interrupts.after_repeat_rounds=4');
    expect(c!.interrupts).toEqual([{ turn: 1, round: 8, after_repeat: true, finding: { detector: 'tool_batch', kind: 'repeated_batch', turn: 1, round: 4 } }]);
  });

  it('a session the user never interrupted has no interrupts field', async () => {
    const [s] = await sessionsOf('fixtures/calibration/canonical/loop-migrate-retry.jsonl');
    expect(s).not.toHaveProperty('interrupts');
  });

  const real = [
    ['recordings/real/claude-code/vct_claude_code.jsonl', [{ turn: 1, round: 5 }, { turn: 2, round: 4 }]],
    ['research-samples/codex/jazzyalex_agent-sessions_codex_small.jsonl', [{ turn: 1, round: 1 }]],
    ['recordings/real/gemini/vct_gemini.jsonl', [{ turn: 3, round: 6 }]],
    ['research-samples/gemini-cli/jazzyalex_agent-sessions_large.json', [{ turn: 1, round: 2 }]],
  ] as const;
  for (const [path, want] of real) {
    const file = join(ROOT, '..', 'shared', path);
    itWith(path.startsWith('recordings/') ? 'shared-recordings' : 'research-samples', `real sessions, read in place: ${path}`, async () => {
      expect(existsSync(file), file).toBe(true);
      const got = (await sessionsOf(file)).flatMap((s) => (s.interrupts ?? []).map((i) => ({ turn: i.turn, round: i.round, after_repeat: i.after_repeat })));
      expect(got).toEqual(want.map((w) => ({ ...w, after_repeat: false })));
    });
  }
});

describe('sweep --labels interrupts', () => {
  it('scores every value against the interrupted loops, and a hand label wins over a weak one', async () => {
    const dir = join(tmp.dir, 'corpus');
    tmp.write('corpus/claude-esc.jsonl', claudeLoop());
    tmp.write('corpus/rollout-esc.jsonl', codexLoop());
    tmp.write('corpus/calm.json', fixture('gemini/session-2026-03-01T09-00-9a8b7c6d.json'));
    const weak = await runCli(['sweep', dir, '--param', 'tool_batch.max_strikes=1:3:1', '--labels', 'interrupts', '--json']);
    expect(weak.code, weak.stderr).toBe(0);
    const result = JSON.parse(weak.stdout) as {
      interrupts: { after_repeat: number; no_repeat: number; hand_wins: number };
      labels: { loop: number; clean: number };
      points: { values: Record<string, number>; interrupts: { loops: number; stopped_first: number; rounds_earlier: number }; metrics: { tp: number; fn: number } }[];
    };
    expect(result.interrupts).toEqual({ after_repeat: 2, no_repeat: 0, hand_wins: 0 });
    expect(result.labels).toMatchObject({ loop: 2, clean: 0 });
    // max_strikes 1 stops at the second identical call (round 2), 2 at the third (round 3), 3 at
    // the fourth (round 4); the user stopped Claude Code at round 4 and Codex at round 5.
    expect(result.points.map((p) => [p.values['tool_batch.max_strikes'], p.interrupts])).toEqual([
      [1, { loops: 2, stopped_first: 2, rounds_earlier: 2 + 3 }],
      [2, { loops: 2, stopped_first: 2, rounds_earlier: 1 + 2 }],
      [3, { loops: 2, stopped_first: 2, rounds_earlier: 0 + 1 }],
    ]);
    expect(result.points.map((p) => p.metrics.tp)).toEqual([2, 2, 2]);

    const hand = tmp.write('hand.json', JSON.stringify({ 'claude-esc.jsonl': 'clean', 'calm.json': 'clean' }));
    const both = await runCli(['sweep', dir, '--param', 'tool_batch.max_strikes=2:2:1', '--labels', hand, '--labels', 'interrupts']);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain('labels: 1 loop, 2 clean; 0 unlabeled sessions');
    expect(both.stdout).toContain('interrupts: 2 right after a repeat (weak loop labels; 1 of their sessions hand-labelled, the hand label wins), 0 with no repeat before them (no label)');
    // SAVED and CUT: each stop at round 3 prevents only the loop going on (the user interrupted it), so nothing is cut
    expect(both.stdout).toMatch(/^ +2 +\S+ \/ \S+ +\S+ \/ \S+ +\S+ \/ \S+ +3 · \S+ tok +0 +1 +1 +1 +0 +0\.500 +1\.000 +0\.500 +2 \/ 2 +3$/m);

    const two = await runCli(['sweep', dir, '--param', 'tool_batch.max_strikes=2:2:1', '--labels', hand, '--labels', hand]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('--labels takes one labels file (and/or interrupts), not 2');
  });

  it('shards of an interrupts sweep merge into the sweep of everything', async () => {
    const args = ['sweep', 'fixtures', '--param', 'tool_batch.max_strikes=1:3:1', '--labels', 'interrupts', '--json'];
    const whole = await runCli(args);
    expect(whole.code, whole.stderr).toBe(0);
    const parts: string[] = [];
    for (const k of [1, 2]) {
      const out = join(tmp.dir, `shard-${k}.json`);
      const r = await runCli([...args, '--shard', `${k}/2`, '-o', out]);
      expect(r.code, r.stderr).toBe(0);
      parts.push(out);
    }
    const merged = await runCli(['merge', ...parts, '--format', 'json']);
    expect(merged.code, merged.stderr).toBe(0);
    const pick = (text: string) => {
      const r = JSON.parse(text) as { interrupts: unknown; labels: unknown; points: { interrupts: unknown; metrics: unknown }[] };
      return { interrupts: r.interrupts, labels: r.labels, points: r.points.map((p) => ({ interrupts: p.interrupts, metrics: p.metrics })) };
    };
    expect(pick(merged.stdout)).toEqual(pick(whole.stdout));
    // The new agents' fixtures (issue 55) add three interrupts not right after a repeat: Copilot's
    // abort, OpenCode's Esc and Qwen Code's cancel; issue 58's pi branch a fourth (an aborted response).
    expect(pick(whole.stdout).interrupts).toEqual({ after_repeat: 2, no_repeat: 4, hand_wins: 0 });
  });

  it('the labeller proposes loop for a session interrupted after a repeat, and enter takes it', async () => {
    const file = tmp.write('label/claude-esc.jsonl', claudeLoop());
    const listed = await runCli(['label', file, '--labels', join(tmp.dir, 'l.json')]);
    expect(listed.stdout).toContain('t1 r2 repeated_batch (interrupted after a repeat: proposed loop)');
    const answers = tmp.write('enter.txt', 'enter\n');
    const r = await runCli(['label', file, '--labels', join(tmp.dir, 'l.json'), '--batch', answers]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(tmp.dir, 'l.json'), 'utf8'))['0c1d2e3f-0000-4000-8000-0000000000aa']).toEqual({ label: 'loop', turn: 1, round: 2 });
  });
});
