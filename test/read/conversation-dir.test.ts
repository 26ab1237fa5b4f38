// An OpenHands V1 conversation folder (base_state.json + events/event-*.json) is one input: found
// as one by discovery wherever it lies in a scanned tree, and read whole, in event order.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import { discoverInputs } from '../../src/read/discover.js';
import { RecordingSink } from '../helpers/record.js';
import { scratchDir } from './tmp.js';

const scratch = scratchDir('loopledger-convdir-');
afterAll(() => scratch.cleanup());

const BASE = { id: 'conv-1', agent: { llm: { model: 'openai/gpt-test', usage_id: 'agent' }, kind: 'Agent' } };
const msg = (source: string, text: string) => ({
  id: `m-${text}`,
  timestamp: '2026-01-01T00:00:00',
  source,
  kind: 'MessageEvent',
  llm_message: { role: source === 'user' ? 'user' : 'assistant', content: [{ type: 'text', text }] },
  ...(source === 'agent' ? { llm_response_id: `r-${text}` } : {}),
});
const action = (n: number, command: string) => ({
  id: `a-${n}`,
  timestamp: '2026-01-01T00:00:01',
  source: 'agent',
  kind: 'ActionEvent',
  thought: [{ type: 'text', text: `step ${n}` }],
  action: { command, kind: 'TerminalAction' },
  tool_name: 'terminal',
  tool_call_id: `call-${n}`,
  tool_call: { id: `call-${n}`, name: 'terminal', arguments: JSON.stringify({ command, security_risk: 'LOW', summary: `run ${n}` }) },
  llm_response_id: `resp-${n}`,
});
const observation = (n: number, text: string) => ({
  id: `o-${n}`,
  timestamp: '2026-01-01T00:00:02',
  source: 'environment',
  kind: 'ObservationEvent',
  tool_name: 'terminal',
  tool_call_id: `call-${n}`,
  action_id: `a-${n}`,
  observation: { content: [{ type: 'text', text }], is_error: false, exit_code: 0, kind: 'TerminalObservation' },
});

/** A conversation folder under `root`, its events numbered in the given order. */
function conversation(root: string, events: unknown[], extra: Record<string, string> = {}): string {
  const dir = join(scratch.dir, root);
  mkdirSync(join(dir, 'events'), { recursive: true });
  scratch.file(join(root, 'base_state.json'), JSON.stringify(BASE));
  scratch.file(join(root, 'events', '.eventlog.lock'), '');
  events.forEach((e, i) => scratch.file(join(root, 'events', `event-${String(i).padStart(5, '0')}-${(e as { id: string }).id}.json`), JSON.stringify(e)));
  for (const [name, text] of Object.entries(extra)) scratch.file(join(root, name), text);
  return dir;
}

describe('V1 conversation folders', () => {
  it('discovery yields a conversation folder once, not its files, wherever it lies in the tree', async () => {
    const events = [msg('user', 'go'), action(1, 'ls'), observation(1, 'a b')];
    conversation('tree/conversations/aaa', events);
    conversation('tree/conversations/bbb', events);
    scratch.file('tree/other.jsonl', '{}\n');
    const root = join(scratch.dir, 'tree');
    const { files, errors } = await discoverInputs([root]);
    expect(errors).toEqual([]);
    expect(files.map((f) => f.slice(root.length + 1))).toEqual(['conversations/aaa', 'conversations/bbb', 'other.jsonl']);
    // named directly, too
    expect((await discoverInputs([join(root, 'conversations/aaa')])).files).toEqual([join(root, 'conversations/aaa')]);
  });

  it('reads the folder as one openhands session: base_state first, then events by index', async () => {
    // Written out of order on disk (file names decide), with one file that is not an event.
    const dir = conversation('read/conv', [msg('user', 'go'), action(1, 'ls'), observation(1, 'a b'), msg('agent', 'done')], {
      'events/notes.txt': 'not an event',
    });
    const sink = new RecordingSink();
    const summary = await ingestFile(dir, sink);
    expect(summary).toMatchObject({ format: 'openhands', sessions: 1, lines: 5, skipped: [] });
    expect(summary.error).toBeUndefined();
    const s = sink.sessions[0]!;
    expect(s.info).toMatchObject({ id: 'conv-1', format: 'openhands', parent: null });
    expect(s.turns).toEqual([1]);
    expect(s.rounds.map((r) => [r.text, r.calls.map((c) => c.name), r.answers?.map((a) => a.content), r.model])).toEqual([
      ['step 1', ['terminal'], ['a b'], 'openai/gpt-test'],
      ['done', [], [], 'openai/gpt-test'],
    ]);
    // the SDK's own per-call parameters are not part of what the call does
    expect(s.rounds[0]!.calls[0]!.arguments).toEqual({ command: 'ls' });
  });

  it('a broken event file is one skip naming the file; the rest is read', async () => {
    const dir = conversation('broken/conv', [msg('user', 'go'), action(1, 'ls'), observation(1, 'ok')]);
    scratch.file(join('broken/conv', 'events', 'event-00001-a-1.json'), '{"id": "a-1", ');
    const sink = new RecordingSink();
    const summary = await ingestFile(dir, sink);
    expect(summary.format).toBe('openhands');
    expect(summary.skipped).toHaveLength(1);
    expect(summary.skipped[0]!.line).toBeNull();
    expect(summary.skipped[0]!.reason).toMatch(/^events\/event-00001-a-1\.json: malformed JSON/);
    expect(sink.sessions[0]!.turns).toEqual([1]);
  });
});
