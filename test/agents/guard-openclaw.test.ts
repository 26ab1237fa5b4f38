// The live guard in OpenClaw 2026.9.6 (issue 58 item 3), as test/agents/guard-npm.test.ts verifies
// it in Droid and pi: the real agent (`openclaw agent --local`) driven by the scripted chat server
// (three identical failing shell calls, one that succeeds, a closing text) with the guard installed
// by `loopledger hook install openclaw --user --write` as a user would. One run per case: under
// enforce the third call is refused before it runs and the model reads why; under telemetry
// nothing is refused and the hook's verdicts are `analyze`'s of the store OpenClaw wrote, and so
// they are for a text chanted over varied work; a guard that cannot answer (its state folder
// impossible to create) leaves every call running. One OpenClaw run took 47-71 s here, so four
// runs are all this file makes.
// Needs the agent: `node test/agents/install-more.mjs openclaw`; skipped, saying why, without.

import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { openSnapshot, rows } from '../../src/read/sqlite.js';
import { describeWith } from '../helpers/capabilities.js';
import { liveAndStoreVerdicts } from './harness.mjs';
import { recordGuarded } from './record-more.mjs';

const REFUSED = /loopledger: refused before it ran\. This tool batch repeats the previous ones/;
const CASE = { timeout: 60_000 };
const CHANT = 'I will check the file again now to be sure that nothing has changed since the last time. '.repeat(8);

/** The store OpenClaw wrote: its agent's SQLite database. */
function database(store: string): string {
  const files = readdirSync(store, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('openclaw-agent.sqlite'));
  expect(files, 'one agent store').toHaveLength(1);
  return join(store, files[0]!);
}

/** The tool results OpenClaw recorded, in order: their text and error mark. */
async function toolResults(store: string): Promise<{ text: string; isError: boolean }[]> {
  const db = await openSnapshot(database(store));
  type Message = { role?: string; content?: unknown; isError?: boolean };
  const messages = rows(db, 'SELECT event_json FROM transcript_events ORDER BY created_at, seq').map((r) => (JSON.parse(String(r.event_json)) as { message?: Message }).message ?? {});
  return messages.filter((m) => m.role === 'toolResult').map((m) => ({ text: JSON.stringify(m.content), isError: m.isError === true }));
}

type Run = Awaited<ReturnType<typeof recordGuarded>>;

const refusedAt = (bodies: string[]) => bodies.findIndex((b) => REFUSED.test(b));

describeWith('agent:openclaw', 'the live guard in OpenClaw', () => {
  const runs: Partial<Record<'enforce' | 'telemetry' | 'broken' | 'chant', Run>> = {};
  beforeAll(async () => {
    runs.enforce = await recordGuarded('openclaw', 'enforce');
    runs.telemetry = await recordGuarded('openclaw', 'telemetry');
    runs.broken = await recordGuarded('openclaw', 'enforce', {
      stateDir: (home) => {
        writeFileSync(join(home, 'not-a-folder'), '');
        return join(home, 'not-a-folder', 'state');
      },
    });
    // The same text chanted over varied work: the plugin sends each call's response text (before_message_write).
    runs.chant = await recordGuarded('openclaw', 'telemetry', { script: (v) => (v.modelTurns < 4 ? { text: CHANT, calls: [{ role: 'shell', input: { command: `echo step ${v.modelTurns}` } }] } : { text: 'Done.' }) });
  }, 600_000);

  it('enforce: the third identical failing call is refused before it runs, the model reads why, the run goes on to its end', CASE, async () => {
    const r = runs.enforce!;
    expect(r.status).toBe(0);
    // Requests 0–2 answer the calls before; the request after the third call carries the refusal.
    expect(refusedAt(r.bodies), 'a request after the third call carries the refusal').toBe(3);
    expect(r.requests, 'the run went on: the succeeding call and the closing text were asked for').toBe(5);
    // OpenClaw's own record: the failing command ran twice; the third answer is the refusal, marked an error.
    const results = await toolResults(join(r.out, 'store'));
    expect(results.filter((a) => a.text.includes('No such file or directory'))).toHaveLength(2);
    expect(results[2]!.text).toMatch(REFUSED);
    expect(results[2]!.isError).toBe(true);
  });

  it("telemetry: nothing refused; the hook's verdicts are analyze's of the store OpenClaw wrote", CASE, () => {
    const r = runs.telemetry!;
    expect(r.status).toBe(0);
    expect(r.bodies.some((b) => REFUSED.test(b))).toBe(false);
    const { live: online, stored: offline } = liveAndStoreVerdicts(r.ledgers, join(r.out, 'store'));
    expect(online).toEqual(offline);
    expect(online).toContain('turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop');
  });

  it("the same text chanted over varied work: the hook's verdicts on the text are analyze's of the store (the text reaches the guard live)", CASE, () => {
    const r = runs.chant!;
    expect(r.status).toBe(0);
    const { live: online, stored: offline } = liveAndStoreVerdicts(r.ledgers, join(r.out, 'store'));
    expect(online).toEqual(offline);
    expect(online.some((v) => /output\/\w+ .*enforce:steer/.test(v)), 'the chant is flagged').toBe(true);
  });

  it('a guard that cannot answer (its state folder is a file) leaves OpenClaw running every call', CASE, () => {
    const r = runs.broken!;
    expect(r.status).toBe(0);
    expect(r.requests).toBe(5);
    expect(r.bodies.some((b) => REFUSED.test(b))).toBe(false);
  });
});
