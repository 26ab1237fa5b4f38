// Kimi CLI's tool answers, whatever their text: the failure is read from Kimi's own `<system>` note
// alone (kimi_cli/soul/message.py: `ERROR: <message>` for a ToolError from 0.43; 0.42's bare shell
// notes from kimi_cli/tools/bash), and the answer's text is every text part, the note included.

import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ingestFile } from '../../src/formats/ingest.js';
import type { Round, TranscriptSink } from '../../src/model/transcript.js';

class Rounds implements TranscriptSink {
  rounds: Round[] = [];
  session(): void {}
  turn(): void {}
  round(_id: string, round: Round): void {
    this.rounds.push(round);
  }
  end(): void {}
}

async function readAnswer(note: string, output: string): Promise<{ isError: boolean; content: string }> {
  const lines = [
    JSON.stringify({ role: '_checkpoint', id: 0 }),
    JSON.stringify({ role: 'user', content: 'Run it.' }),
    JSON.stringify({ role: 'assistant', content: [], tool_calls: [{ type: 'function', id: 'Bash:0', function: { name: 'Bash', arguments: '{"command":"make"}' } }] }),
    JSON.stringify({ role: 'tool', content: [{ type: 'text', text: `<system>${note}</system>` }, { type: 'text', text: output }], tool_call_id: 'Bash:0' }),
  ];
  const sink = new Rounds();
  await ingestFile('-', sink, { stdin: Readable.from([Buffer.from(lines.join('\n') + '\n')]) });
  expect(sink.rounds).toHaveLength(1);
  const answer = sink.rounds[0]!.answers![0]!;
  return { isError: answer.isError, content: answer.content };
}

/** Note text with no closing tag of its own. */
const text = fc.string({ maxLength: 40 }).filter((t) => !t.includes('</system>'));

describe('format kimi: a tool answer\'s failure comes from its <system> note only', () => {
  it('a ToolError note (ERROR: …) is a failure, whatever follows it and whatever the output says', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, async (message, output) => {
        const a = await readAnswer(`ERROR: ${message}`, output);
        expect(a.isError).toBe(true);
        // Text parts are joined by a newline; an empty one adds nothing.
        expect(a.content).toBe(output === '' ? `<system>ERROR: ${message}</system>` : `<system>ERROR: ${message}</system>\n${output}`);
      }),
      { numRuns: 60 },
    );
  });

  it('0.42\'s bare shell failure notes are failures: a non-zero exit code, a timeout', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 255 }), fc.integer({ min: 1, max: 3600 }), text, async (code, seconds, output) => {
        expect((await readAnswer(`Command failed with exit code: ${code}.`, output)).isError).toBe(true);
        expect((await readAnswer(`Command killed by timeout (${seconds}s)`, output)).isError).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('any other note is an answer, even when the output reads like an error', async () => {
    const other = text.filter((t) => !t.startsWith('ERROR:') && !t.startsWith('Command failed with exit code') && !t.startsWith('Command killed by timeout'));
    await fc.assert(
      fc.asyncProperty(other, async (note) => {
        expect((await readAnswer(note, 'ERROR: Command failed with exit code: 1.')).isError).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});
