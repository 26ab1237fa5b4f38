// The scenarios every real agent plays (issue 29), as one suite per agent: the agent installed at
// its pinned version (test/agents/install.mjs), driven by a scripted model server, the hook
// installed by `loopledger hook install <agent> --write` as a user would. Each scenario also
// reads back the transcript the agent wrote with `loopledger analyze` and checks that it gives
// the verdicts the live guard gave, round for round.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { AGENTS, installedVersion } from './install.mjs';
import { analyze, codexHookList, hookDecisions, runAgent as startAgent, scratch, SHELL, verdictKey, type AgentName, type AgentRun, type Entry, type Script, type Turn } from './harness.mjs';

const FAILING = 'cat missing.txt';

/** The text a model chants round after round over varied calls (seed 002's "inline chanting"); hook-more-chant.test.ts plays it too. */
export const CHANT = 'I will check the file again now to be sure that nothing has changed since the last time. '.repeat(8);

/** One agent run whose scratch folder goes once the test passes (kept to look into otherwise). */
async function runAgent(ctx: TestContext, ...args: Parameters<typeof startAgent>): Promise<AgentRun> {
  const run = await startAgent(...args);
  // The test's own hook: concurrent tests lose the global one after an await.
  ctx.onTestFinished(({ task }) => {
    if (task.result?.state === 'pass') rmSync(run.dir.root, { recursive: true, force: true });
  });
  return run;
}

/** The same tool batch `times` times, then a final answer. */
function again(batch: Turn, times: number): Script {
  return (v) => (v.modelTurns < times ? batch : { text: 'Done.' });
}

/** How many answers the model saw that a command really produced (not a refusal). */
function ranCount(run: AgentRun, marker: RegExp): number {
  let most = 0;
  for (const q of run.modelRequests) {
    const view = resultsOf(q.body);
    most = Math.max(most, view.filter((t) => marker.test(t)).length);
  }
  return most;
}

/** Every tool result text a request carries, in any of the three APIs. */
function resultsOf(body: any): string[] {
  const out: string[] = [];
  const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v ?? ''));
  for (const m of body?.messages ?? []) {
    if (Array.isArray(m.content)) for (const b of m.content) if (b.type === 'tool_result') out.push(text(b.content));
  }
  for (const c of body?.contents ?? []) for (const p of c.parts ?? []) if (p.functionResponse) out.push(text(p.functionResponse.response));
  if (Array.isArray(body?.input)) for (const it of body.input) if (it.type === 'function_call_output') out.push(text(it.output));
  return out;
}

function transcriptEntries(run: AgentRun): Entry[] {
  expect(run.transcripts.length, 'the agent wrote a transcript').toBeGreaterThan(0);
  const report = analyze(run.transcripts);
  return report.sessions.flatMap((s: { entries: Entry[] }) => s.entries);
}

/** The verdicts both sides can give: up to the turn's end (after it, Codex keeps calling and the
 *  hook refuses every call, while `analyze` counts them on: docs/hook.md says so). */
function live(entries: Entry[]): string[] {
  return [...new Set(entries.filter((e) => !e.after_stop).map(verdictKey))];
}

function hookEntries(run: AgentRun): Entry[] {
  return hookDecisions(run.ledgers)
    .map((d) => d.entry)
    .filter((e): e is Entry => e !== undefined);
}

function expectSameVerdicts(run: AgentRun): string[] {
  const offline = live(transcriptEntries(run));
  const online = live(hookEntries(run));
  expect(online, 'the live guard and analyze of the transcript agree, round for round').toEqual(offline);
  return offline;
}

function rawTranscripts(run: AgentRun): string {
  return run.transcripts.map((f) => readFileSync(f, 'utf8')).join('\n');
}

/** The agent's own record that the third call was refused. */
function expectAgentRecordsDenial(agent: AgentName, run: AgentRun): void {
  if (agent === 'claude-code') {
    const out = JSON.parse(run.result.stdout);
    expect(out.terminal_reason).toBe('hook_stopped');
    expect(out.permission_denials.map((d: { tool_input: { command: string } }) => d.tool_input.command)).toContain(FAILING);
  } else if (agent === 'gemini') {
    expect(run.result.stderr).toContain('Agent execution stopped by hook: loopledger');
    expect(rawTranscripts(run)).toMatch(/"status":"error"[^\n]*loopledger \(enforce\)/);
  } else {
    // Codex cannot end the turn at PreToolUse: the model reads the refusal as the call's output.
    expect(rawTranscripts(run)).toContain('Command blocked by PreToolUse hook: loopledger');
    expect(run.modelRequests.some((q) => resultsOf(q.body).some((t) => t.includes('loopledger: refused before it ran')))).toBe(true);
  }
}

export function agentSuite(agent: AgentName): void {
  const pinned = `${AGENTS[agent].pkg}@${AGENTS[agent].version}`;
  const shell = SHELL[agent];
  const noSuchFile = /No such file or directory/;

  describeWith(`agent:${agent}`, `${pinned} end to end`, () => {
    it('installs at its pinned version outside the project', () => {
      expect(installedVersion(agent)).toBe(AGENTS[agent].version);
    });

    // Each scenario starts a real agent; on a loaded machine one may take a minute. They run one
    // at a time: under load the hook calls arrive late enough for the live guard to see a
    // parallel batch behind its transcript (Gemini CLI split it): see docs/hook.md, "Batches".
    const group = describe.sequential;
    group('scenarios', { timeout: 240_000 }, () => {
      it('the same failing call: refused before its third run under enforce, as analyze reads it', async (ctx) => {
        const run = await runAgent(ctx, agent, { script: again({ calls: [shell(FAILING)] }, 6), mode: 'enforce' });
        expect(run.result.code, run.result.stderr).toBe(0);
        expect(ranCount(run, noSuchFile), `the command ran twice, never a third time (${run.dir.root})`).toBe(2);
        expectAgentRecordsDenial(agent, run);
        const verdicts = expectSameVerdicts(run);
        expect(verdicts).toContain('turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop');
        const denied = hookDecisions(run.ledgers).filter((d) => d.action === 'deny' || d.action === 'stop');
        expect(denied[0]?.entry?.round).toBe(3);
      });

      it('the same failing call under telemetry: nothing refused, and the session ledger reads as the transcript', async (ctx) => {
        const run = await runAgent(ctx, agent, { script: again({ calls: [shell(FAILING)] }, 4), mode: 'telemetry' });
        expect(run.result.code, run.result.stderr).toBe(0);
        expect(ranCount(run, noSuchFile), 'every call ran').toBe(4);
        expect(hookDecisions(run.ledgers).every((d) => d.action === 'none')).toBe(true);
        const verdicts = expectSameVerdicts(run);
        expect(verdicts).toContain('turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop');
        // The telemetry ledger file read offline gives the transcript's entries.
        const fromLedger = analyze(run.ledgers).sessions.flatMap((s: { entries: Entry[] }) => s.entries);
        expect(live(fromLedger)).toEqual(verdicts);
      });

      it('a poll whose answer changes: never refused, never steered', async (ctx) => {
        const run = await runAgent(ctx, agent, { script: again({ calls: [shell('date +%s%N')] }, 4), mode: 'enforce' });
        expect(run.result.code, run.result.stderr).toBe(0);
        expect(ranCount(run, /\d{16,}/), 'every poll ran').toBe(4);
        expect(hookDecisions(run.ledgers).filter((d) => d.action !== 'none')).toEqual([]);
        expect(run.modelRequests.some((q) => JSON.stringify(q.body).includes('Loop detection:'))).toBe(false);
        const verdicts = expectSameVerdicts(run);
        expect(verdicts.filter((v) => /enforce:(steer|stop)/.test(v))).toEqual([]);
      });

      // Gemini CLI writes a response's text before its calls run and adds the calls to it only
      // after their AfterTool hooks: the guard takes that text for the round it closes there
      // (docs/hook.md, "Gemini CLI"), so the chant is steered at the same round as offline.
      it('the same text chanted over varied work: a steer reaches the model in its next request', async (ctx) => {
        const run = await runAgent(ctx, agent, {
          script: (v) => (v.modelTurns < 4 ? { text: CHANT, calls: [shell(`echo step ${v.modelTurns}`)] } : { text: 'Done.' }),
          mode: 'enforce',
        });
        expect(run.result.code, run.result.stderr).toBe(0);
        const steered = hookDecisions(run.ledgers).find((d) => d.action === 'steer');
        expect(steered, 'the hook steered').toBeDefined();
        const firstSteered = run.modelRequests.findIndex((q) => JSON.stringify(q.body).includes('Loop detection: your visible output'));
        expect(firstSteered, 'the recovery reminder reached the model').toBeGreaterThan(0);
        const verdicts = expectSameVerdicts(run);
        expect(verdicts.some((v) => /output\/\w+ .*enforce:steer/.test(v))).toBe(true);
      });

      // Claude Code runs a batch's calls as their blocks stream in and writes its transcript every
      // 100 ms: the first call may start before the transcript shows the batch, and runs; the call
      // that makes the batch whole is refused (issue 29 (e); test/hook/lagging-batch.test.ts).
      it('a parallel batch repeated: the third is refused before its answers reach the model, or ends the turn when it lands (Gemini CLI)', async (ctx) => {
        const batch = { calls: [shell('cat missing.txt'), shell('cat also-missing.txt')] };
        const run = await runAgent(ctx, agent, { script: again(batch, 6), mode: 'enforce' });
        expect(run.result.code, run.result.stderr).toBe(0);
        const verdicts = expectSameVerdicts(run);
        expect(verdicts.some((v) => v.startsWith('turn 1 round 3 tool_batch/repeated_batch') && v.endsWith('enforce:stop'))).toBe(true);
        if (agent === 'gemini') {
          // Gemini CLI asks BeforeTool of each of the batch's calls, runs them, then AfterTool of
          // each, and adds the calls to its transcript after them: the batch is decided when its
          // answers land, and the turn ends at that AfterTool (docs/hook.md, "Batches"). No model
          // request follows.
          const stop = hookDecisions(run.ledgers).find((d) => d.action === 'stop');
          expect(stop?.event).toBe('AfterTool');
          expect(stop?.entry?.round).toBe(3);
          expect(run.result.stderr).toContain('Agent execution stopped by hook: loopledger');
          expect(run.modelRequests.length).toBe(3);
        } else if (agent === 'codex') {
          // Codex's rollout shows the batch before it runs (`exec_command {cmd}`) and the hook
          // names stdin's `Bash {command}` the same way, so the third batch is the repeat at its
          // first call: both calls are refused before either runs (Codex takes no end at
          // PreToolUse: it goes on, and every later call is refused). docs/hook.md, "Batches".
          expect(ranCount(run, noSuchFile), 'the model saw two batches of answers, never a third').toBe(4);
          const outputs = rawTranscripts(run)
            .split('\n')
            .filter((l) => l.includes('"type":"function_call_output"'))
            .map((l) => JSON.parse(l).payload.output as string);
          const third = outputs.slice(4, 6);
          expect(third.every((o) => o.startsWith('Command blocked by PreToolUse hook: loopledger: ')), JSON.stringify(third)).toBe(true);
          // Whichever call came first carries the reason; its partner is told it belongs to that batch.
          expect(third.filter((o) => o.includes('refused before it ran. This tool batch repeats'))).toHaveLength(1);
          expect(third.filter((o) => o.includes('belongs to a tool batch that was refused as a loop'))).toHaveLength(1);
          expect(outputs.slice(6).length).toBeGreaterThan(0);
          expect(outputs.slice(6).every((o) => o.startsWith('Command blocked by PreToolUse hook: loopledger'))).toBe(true);
        } else {
          expect(ranCount(run, noSuchFile), 'two batches of two ran, never a third').toBe(4);
          const refusal = hookDecisions(run.ledgers).find((d) => d.action === 'deny');
          expect(refusal?.event, 'refused before it ran, not stopped once it had').toBe('PreToolUse');
          expect(refusal?.entry?.round).toBe(3);
          expect(JSON.parse(run.result.stdout).terminal_reason).toBe('hook_stopped');
        }
      });

      it('a hook that cannot answer (its state dir cannot be made): the agent goes on', async (ctx) => {
        const blocker = join(process.env.LOOPLEDGER_AGENTS_TMP || '/tmp', `ll-blocker-${process.pid}-${agent}`);
        writeFileSync(blocker, 'a file where the state dir would go\n');
        ctx.onTestFinished(() => rmSync(blocker, { force: true }));
        const run = await runAgent(ctx, agent, {
          script: again({ calls: [shell(FAILING)] }, 4),
          mode: 'enforce',
          installArgs: ['--state-dir', join(blocker, 'state')],
        });
        expect(run.result.code, run.result.stderr).toBe(0);
        expect(ranCount(run, noSuchFile), 'nothing was refused: every call ran').toBe(4);
        expect(run.result.stdout + run.result.stderr).not.toMatch(/refused before it ran|stopped by hook/);
      });

      if (agent === 'codex') {
        it('hook install codex leaves the hooks reviewed: Codex itself lists them as trusted', async (ctx) => {
          const d = scratch(agent);
          const run = await runAgent(ctx, agent, { script: again({ calls: [shell('true')] }, 1), mode: 'enforce', dir: d });
          expect(run.install?.stderr).toContain('loopledger hooks reviewed for Codex');
          const hooks = (await codexHookList(d)).filter((h) => h.command.includes('hook codex'));
          expect(hooks.map((h) => `${h.eventName} ${h.trustStatus}`).sort()).toEqual(['postToolUse trusted', 'preToolUse trusted', 'stop trusted']);
          // ...and so `codex exec` ran them without --dangerously-bypass-hook-trust: the guard
          // kept its session ledger (it writes one from its first call).
          expect(run.ledgers).toHaveLength(1);
        });
      }

      if (agent !== 'claude-code') return;

      it('a sub-agent (Agent tool) that loops: refused in its own transcript under subagents/, the parent goes on', async (ctx) => {
        const subtask = 'SUBTASK: read missing.txt and report';
        const run = await runAgent(ctx, agent, {
          script: (v) => {
            if (v.userTexts.some((t) => t.includes(subtask))) return v.modelTurns < 5 ? { calls: [shell(FAILING)] } : { text: 'Sub-agent done.' };
            return v.modelTurns === 0
              ? { calls: [{ name: 'Agent', input: { description: 'read the file', prompt: subtask, subagent_type: 'general-purpose' } }] }
              : { text: 'Done.' };
          },
          mode: 'enforce',
        });
        expect(run.result.code, run.result.stderr).toBe(0);
        const sub = run.transcripts.filter((f) => f.includes('/subagents/'));
        expect(sub.length, 'the sub-agent wrote its own transcript under subagents/').toBe(1);
        const report = analyze(run.transcripts);
        const subSession = report.sessions.find((x: { parent: string | null }) => x.parent !== null);
        expect(live(subSession.entries)).toContain('turn 1 round 3 tool_batch/repeated_batch strike 3 enforce:stop');
        expectSameVerdicts(run);
        expect(ranCount(run, noSuchFile)).toBe(2);
        // The parent was not stopped: it read the sub-agent's end and gave its final answer.
        expect(JSON.parse(run.result.stdout).terminal_reason).toBe('completed');
      });

      it('a hook that cannot answer (no transcript on disk): the agent goes on, one errors.log line per call', async (ctx) => {
        const run = await runAgent(ctx, agent, { script: again({ calls: [shell(FAILING)] }, 3), mode: 'enforce', agentArgs: ['--no-session-persistence'] });
        expect(run.result.code, run.result.stderr).toBe(0);
        expect(run.transcripts).toEqual([]);
        expect(JSON.parse(run.result.stdout).terminal_reason).toBe('completed');
        const lines = run.errorsLog.trim().split('\n');
        // Three calls, each PreToolUse and PostToolUseFailure, and the Stop: one line each.
        expect(lines.length).toBe(7);
        for (const line of lines) expect(line).toMatch(/ claude-code (PreToolUse|PostToolUseFailure|Stop) .*ENOENT/);
      });
    });
  });
}
