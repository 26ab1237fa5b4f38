// `vscode-tasks` takes what the VS Code extensions wrote and nothing else (issue 58): a task file is
// an Anthropic-shaped message array, so only its name or the extensions' own marks (modelInfo,
// metrics, <environment_details>) may outbid `anthropic`, and no other fixture is taken.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/formats/index.js';
import { ROOT } from '../cli/helpers.js';

const OURS = [join(ROOT, 'fixtures/agents/vscode-tasks-3.51.0'), join(ROOT, 'fixtures/vscode-tasks')];
const TASK = join(OURS[0]!, '.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1777000000000/api_conversation_history.json');

const detect = (value: unknown, fileName: string) => detectFormat({ mode: 'document', fileName, value })?.name ?? null;

/** Every JSON document among the fixtures, ours left out. */
function otherJsonFixtures(): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, 'fixtures'), { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && entry.name.endsWith('.json') && !OURS.some((dir) => path.startsWith(dir))) out.push(path);
  }
  return out;
}

describe('vscode-tasks detection', () => {
  it('takes a task file by its name, and by the extensions\' marks under any other name', () => {
    const value = JSON.parse(readFileSync(TASK, 'utf8')) as unknown;
    expect(detect(value, 'api_conversation_history.json')).toBe('vscode-tasks');
    expect(detect(value, 'exported-task.json')).toBe('vscode-tasks');
  });

  it('takes no other fixture (Anthropic and OpenAI logs, Cline CLI sessions, agents\' recordings)', () => {
    const taken: string[] = [];
    for (const path of otherJsonFixtures()) {
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        continue; // a fixture of bad input
      }
      if (detect(value, path.split('/').pop()!) === 'vscode-tasks') taken.push(relative(ROOT, path));
    }
    expect(taken).toEqual([]);
  });

  const text = fc.string({ maxLength: 40 }).filter((s) => !s.startsWith('<environment_details>'));
  const block = fc.oneof(
    fc.record({ type: fc.constant('text'), text }),
    fc.record({ type: fc.constant('tool_use'), id: fc.string({ minLength: 1, maxLength: 8 }), name: fc.constantFrom('Bash', 'read_file'), input: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 10 })) }),
    fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.string({ minLength: 1, maxLength: 8 }), content: text }),
  );
  const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.array(block, { minLength: 1, maxLength: 3 }) });

  it('never takes a plain Anthropic message log under another name (property)', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), fc.constantFrom('messages.json', 'log.json', 'conversation.json'), (messages, name) => {
        expect(detect(messages, name)).not.toBe('vscode-tasks');
      }),
    );
  });

  it('takes the same log once an assistant message carries modelInfo (property)', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), (messages) => {
        const marked = [...messages, { role: 'assistant', content: [{ type: 'text', text: 'done' }], modelInfo: { modelId: 'm', providerId: 'p' } }];
        expect(detect(marked, 'log.json')).toBe('vscode-tasks');
      }),
    );
  });
});
