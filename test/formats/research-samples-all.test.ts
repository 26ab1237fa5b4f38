// Every transcript in ../shared/research-samples through the real reader (detection, adapter,
// builder), with the figures reading each file by hand gives. A new sample fails the census
// below until its figures are written here. The samples are never copied into the repository.

import { readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { audit } from '../../src/run/audit.js';
import { ingestFile } from '../../src/formats/ingest.js';
import type { FormatName } from '../../src/model/transcript.js';
import { isConversationDir } from '../../src/read/conversation-dir.js';
import { isTranscriptName } from '../../src/read/discover.js';
import { RecordingSink, type RecordedSession } from '../helpers/record.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const dir = path.resolve(repoRoot, '../shared/research-samples');

interface Expected {
  format: FormatName;
  /** Per session, in the order announced: [id, parent, turns, rounds, tool calls]. */
  sessions: [string, string | null, number, number, number][];
}

const FASTHOOKS = 'c45af7b1-cb7c-4e51-93db-8cbb250a877a';
const TRIMMED = '[trimmed for fixture]';

const EXPECTED: Record<string, Expected> = {
  // 14 steps, each one command with its observation; one task prompt in history.
  'agent-trajectories/SWE-agent_SWE-agent_eps.traj': {
    format: 'swe-agent',
    sessions: [['SWE-agent_SWE-agent_eps', null, 1, 14, 14]],
  },
  // Sidechain: "Hello" then one tool_use round and two text rounds without message.id. Main: one
  // Bash round, the queued_command prompt a second turn. Trimmed: five real user lines; the
  // <synthetic> line is no round, the remaining lines share one message.id per turn gap.
  'claude-code/jazzyalex_agent-sessions_claude_small.jsonl': {
    format: 'claude-code',
    sessions: [
      ['ses_stage0_small/sidechain', 'ses_stage0_small', 1, 3, 1],
      ['ses_stage0_small', null, 2, 1, 1],
      [TRIMMED, null, 5, 2, 1],
    ],
  },
  'claude-code/oneryalcin_fasthooks_sample_agent_sidechain.jsonl': {
    format: 'claude-code',
    sessions: [[`${FASTHOOKS}/agent-af1ff21`, FASTHOOKS, 1, 1, 0]],
  },
  // 10 tool_use blocks; lines sharing message.id make 12 rounds; five real prompts.
  'claude-code/oneryalcin_fasthooks_sample_main_transcript.jsonl': {
    format: 'claude-code',
    sessions: [[FASTHOOKS, null, 5, 12, 10]],
  },
  // First thread: one prompt, a batch of four calls then the reply. The later session_meta lines
  // share one trimmed id: an agent_message, a tool_search, two user_message prompts, then a
  // custom_tool_call and a function_call.
  'codex/jazzyalex_agent-sessions_codex_small.jsonl': {
    format: 'codex',
    sessions: [
      ['019fc8be-3658-7ca3-9e29-000000000000', null, 1, 2, 4],
      [TRIMMED, null, 3, 3, 3],
    ],
  },
  'gemini-cli/jazzyalex_agent-sessions_jsonl_v040.jsonl': {
    format: 'gemini',
    sessions: [['gemini_stage0_jsonl', null, 1, 2, 1]],
  },
  'gemini-cli/jazzyalex_agent-sessions_large.json': {
    format: 'gemini',
    sessions: [['session-2025-12-16T23-47-b4f17607', null, 2, 4, 2]],
  },
  // A hand-written JSON array of stream-json records: no prompt line (turn 1 opens at the first
  // round), four assistant messages, three of them with one tool_use each.
  'claude-stream-json/claude-code-action_sample-turns.json': {
    format: 'claude-code',
    sessions: [['sample-session-id', null, 1, 4, 3]],
  },
  // The test stub: "echo 'hello world'", then the COMPLETE command answered by an empty message.
  'mini-swe-agent/mini-swe-agent_test_local.traj.json': {
    format: 'mini-swe-agent',
    sessions: [['mini-swe-agent_test_local', null, 1, 2, 2]],
  },
  // v1: one ```bash block per assistant message (17 of them; info.model_stats.api_calls is 17).
  'mini-swe-agent/msa1_gemini3_django__django-16255.traj.json': {
    format: 'mini-swe-agent',
    sessions: [['django__django-16255', null, 1, 17, 17]],
  },
  // v1: 18 assistant messages (api_calls 18); one holds a ```python excerpt beside its ```bash block.
  'mini-swe-agent/msa1_gemini3_pydata__xarray-4629.traj.json': {
    format: 'mini-swe-agent',
    sessions: [['pydata__xarray-4629', null, 1, 18, 18]],
  },
  // v2 tool calls: 31 assistant messages of one call each (api_calls 31), 30 tool answers and the
  // exit message answering the submission.
  'mini-swe-agent/msa2_deepseek_django__django-14752.traj.json': {
    format: 'mini-swe-agent',
    sessions: [['django__django-14752', null, 1, 31, 31]],
  },
  // One prompt; run, edit, edit, run (one model response each) and a closing message; eight
  // state-change and "no observation" events skipped.
  'openhands/OpenHands_trajs_basic_gui_mode.json': {
    format: 'openhands',
    sessions: [['OpenHands_trajs_basic_gui_mode', null, 1, 5, 4]],
  },
  // Three prompts, two plain messages, then the finish call.
  'openhands/OpenHands_trajs_basic_interactions.json': {
    format: 'openhands',
    sessions: [['OpenHands_trajs_basic_interactions', null, 3, 3, 1]],
  },
  // read, run, read, finish: four responses of one call each.
  'openhands/OpenHands_trajs_wrong_initial_state.json': {
    format: 'openhands',
    sessions: [['OpenHands_trajs_wrong_initial_state', null, 1, 4, 4]],
  },
  // An excerpt: no prompt, two ActionEvents with their own llm_response_id; the observation of a
  // third action that is not in the file answers nothing.
  'openhands/software-agent-sdk_goal_events.jsonl': {
    format: 'openhands',
    sessions: [['software-agent-sdk_goal_events', null, 1, 2, 2]],
  },
  // The folder is one input: two prompts, the terminal and finish actions, the closing message.
  'openhands/software-agent-sdk_v1_conversation_cd945624': {
    format: 'openhands',
    sessions: [['cd945624-03b9-487e-bdd4-018e3f531dfd', null, 2, 3, 2]],
  },
  // A Jaeger export, 77 spans of one trace, every one with the same session.id. Four ChatLiteLLM.chat
  // spans are the rounds: the supervisor's query_detector call, the detector's pyats_list_devices
  // call, the detector's inventory text, the supervisor's answer. Two turns: the operator's prompt,
  // and the supervisor's instruction that the detector's chat receives as its user message.
  'otel/ponchotitlan_agntcy-langgraph_jaeger_get-inventory.json': {
    format: 'otel',
    sessions: [['packetpanic.supervisor_bbc6ca13-1267-47cd-849a-795ff50a7874', null, 2, 4, 2]],
  },
};

/**
 * Samples of formats loopledger does not read yet: each must be refused with the reader's clear
 * message (never misread as another format), until its reader lands and it moves to EXPECTED.
 */
const NOT_READ_YET: Record<string, string> = {};

/** What discovery yields under `root`: transcript files, and a V1 conversation folder as one input. */
function transcripts(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    const entries: Dirent[] = readdirSync(dir, { withFileTypes: true });
    if (isConversationDir(entries)) {
      out.push(path.relative(root, dir).split(path.sep).join('/'));
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.isFile() && isTranscriptName(e.name)) out.push(path.relative(root, path.join(dir, e.name)).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

const calls = (s: RecordedSession) => s.rounds.reduce((n, r) => n + r.calls.length, 0);

describeWith('research-samples', 'research samples: every file through the reader', () => {
  it('the census: every transcript there has its figures here', () => {
    expect(transcripts(dir)).toEqual([...Object.keys(EXPECTED), ...Object.keys(NOT_READ_YET)].sort());
  });

  for (const [rel, what] of Object.entries(NOT_READ_YET)) {
    it(`${rel}: ${what}, not read yet: refused as no recognized format, nothing misread`, async () => {
      const sink = new RecordingSink();
      const summary = await ingestFile(path.join(dir, rel), sink);
      expect(summary.error).toMatch(/not a recognized transcript format/);
      expect(summary.sessions).toBe(0);
      expect(sink.sessions).toEqual([]);
    });
  }

  for (const [rel, expected] of Object.entries(EXPECTED)) {
    it(`${rel}: ${expected.format}, ${expected.sessions.length} session(s)`, async () => {
      const sink = new RecordingSink();
      const summary = await ingestFile(path.join(dir, rel), sink);
      expect(summary.format).toBe(expected.format);
      expect(summary.error).toBeUndefined();
      expect(summary.skipped).toEqual([]);
      expect(summary.sessions).toBe(expected.sessions.length);
      const got = sink.sessions.map((s): Expected['sessions'][number] => [
        s.info.id,
        s.info.parent,
        s.turns.length,
        s.rounds.length,
        calls(s),
      ]);
      expect(got).toEqual(expected.sessions);
      for (const s of sink.sessions) {
        expect(s.ended).toBe(true);
        expect(s.info.format).toBe(expected.format);
        expect(s.turns).toEqual(s.turns.map((_, i) => i + 1));
        expect(s.rounds.map((r) => r.index)).toEqual(s.rounds.map((_, i) => i + 1));
      }
    });
  }

  describe('the SWE-agent run in detail', () => {
    const file = path.join(dir, 'agent-trajectories/SWE-agent_SWE-agent_eps.traj');
    const SUBMIT = 'submit flag{People always make the best exploits.}\n';

    it('one call per step named after the command, answered by the observation; no model, no usage', async () => {
      const sink = new RecordingSink();
      await ingestFile(file, sink);
      const s = sink.sessions[0]!;
      expect(s.rounds.map((r) => r.calls[0]!.name)).toEqual([
        'file', 'pwd', 'file', 'cat', 'cat', 'cat', 'echo', 'echo', 'submit', 'submit', 'submit', 'submit', 'submit', 'submit',
      ]);
      // the typo "flat{…}" first, then four identical submissions, then a quoted variant
      const submits = s.rounds.slice(8).map((r) => r.calls[0]!.arguments);
      expect(submits.slice(1, 5)).toEqual([SUBMIT, SUBMIT, SUBMIT, SUBMIT]);
      expect(submits[0]).not.toBe(SUBMIT);
      expect(submits[5]).not.toBe(SUBMIT);
      expect(s.rounds.slice(8, 13).map((r) => r.answers)).toEqual(Array(5).fill([{ content: 'Wrong flag!', isError: false }]));
      expect(s.rounds.every((r) => r.answers?.length === 1 && r.thinking.length === 0)).toBe(true);
      expect(s.rounds.every((r) => r.model === null && r.usage === null && r.line === null)).toBe(true);
      expect(s.rounds[0]!.text).toBe("Let's check the files provided \n");
    });

    it('the ledger stops the third identical "Wrong flag!" submission under enforce (round 12)', async () => {
      const report = await audit([file], { jobs: 1 });
      expect(report.inputs.map((i) => i.format)).toEqual(['swe-agent']);
      const s = report.sessions[0]!;
      expect(s).toMatchObject({ id: 'SWE-agent_SWE-agent_eps', turns: 1, rounds: 14, tool_calls: 14, model: null });
      // identical submits are rounds 10..13: strike at the second, stop at the third
      // round 13 is the same submit again (saved); round 14 quotes the flag and is accepted: new work, cut
      expect(s.outcome.enforce.stops).toEqual([{ turn: 1, round: 12, recovered_at: 14 }]);
      const toolBatch = s.entries.filter((e) => e.detector === 'tool_batch');
      expect(toolBatch.map((e) => [e.round, e.intervention.enforce, e.after_stop])).toEqual([
        [11, 'noted', false],
        [12, 'stop', false],
        [13, 'none', true],
      ]);
      expect(toolBatch[1]!.finalization_reason).toBe('loop_detected');
    });
  });
});
