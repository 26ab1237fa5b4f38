// The sweep over the bundled corpus (fixtures/, labeled by fixtures/.labels.json) through the real
// pipeline: read, replay, ledger, sweep. Issue 7: "sweep over tool_batch.max_strikes=1:4:1 on a
// fixture corpus gives monotone stop counts; precision/recall/FPR computed right on a hand-checked
// labeled set".

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadLabels } from '../../src/calibrate/labels.js';
import { runSweep } from '../../src/commands/sweep-run.js';
import { loadConfig } from '../../src/config/load.js';
import type { PositiveLevel, SweepPoint, SweepResult } from '../../src/calibrate/sweep.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures', import.meta.url));
const LABELS = fileURLToPath(new URL('../../fixtures/.labels.json', import.meta.url));

async function run(params: string[], extra: { labels?: string; maxFpr?: string; positive?: PositiveLevel } = {}): Promise<SweepResult> {
  const warnings: string[] = [];
  const out = await runSweep([FIXTURES], {
    loaded: await loadConfig({}),
    params,
    format: 'json',
    color: false,
    inputFormat: 'auto',
    onWarning: (m) => warnings.push(m),
    ...extra,
  });
  // A label that matches nothing would silently drop out of the metrics below.
  expect(warnings).toEqual([]);
  return JSON.parse(out) as SweepResult;
}

function at(r: SweepResult, strikes: number): SweepPoint {
  const p = r.points.find((q) => q.values['tool_batch.max_strikes'] === strikes);
  if (!p) throw new Error(`no point for max_strikes=${strikes}`);
  return p;
}

/**
 * The hand check: every labeled item, the session id the ledger gives it, and whether it reaches
 * `stop` under enforce at tool_batch.max_strikes=1 and at the default 2, each worked out by reading
 * the transcript against seed 000 (a batch is refused when its run count exceeds max_strikes; a
 * changed answer restarts the run, but only once it is known, i.e. after the check) and the ladder
 * (an output/thinking stop needs three unheeded steers and confidence >= 0.88).
 */
const HAND: readonly { key: string; id: string; label: 'loop' | 'clean'; stop1: boolean; stop2: boolean; why: string }[] = [
  // loops
  { key: 'looping-deploy.json', id: 'looping-deploy', label: 'loop', stop1: true, stop2: true, why: 'same failing deploy 5x' },
  { key: 'canon-chanting', id: 'canon-chanting', label: 'loop', stop1: false, stop2: false, why: 'only 3 copies in turn 2: repeated_response steers, too few rounds to stop' },
  { key: '7b1d2f3a-0000-4000-8000-000000001000', id: '7b1d2f3a-0000-4000-8000-000000001000', label: 'loop', stop1: true, stop2: true, why: 'same KeyError 4x' },
  { key: 'looping-test-fix.jsonl', id: '7c2d41e9-5b08-4f3a-8e61-0d93a7b2c4f5', label: 'loop', stop1: true, stop2: true, why: 'same failing test batch' },
  { key: 'rollout-2026-02-20T16-41-09-0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37.jsonl', id: '0199a1c4-7e21-7b30-9d4f-5c8e2a6b1d37', label: 'loop', stop1: true, stop2: true, why: 'same cargo error 4x' },
  { key: 'session-2026-03-02T10-15-6f1c2d3e.jsonl', id: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f', label: 'loop', stop1: true, stop2: true, why: 'same build failure 4x' },
  { key: 'conversations:2', id: 'conversations:2', label: 'loop', stop1: false, stop2: false, why: 'apology chanted 3x in turn 2: repeated_response steers, too few rounds to stop' },
  { key: 'looping-leap-day.jsonl', id: 'looping-leap-day', label: 'loop', stop1: true, stop2: true, why: 'same failing test run 4x after the edit' },
  { key: 'loop-migrate-retry.jsonl', id: 'loop-migrate-retry', label: 'loop', stop1: true, stop2: true, why: 'turn 2: same migration error 5x' },
  { key: 'loop-ab-cycle.jsonl', id: 'loop-ab-cycle', label: 'loop', stop1: false, stop2: false, why: 'A-B cycle: tool_cycle is only noted (cycle_enforce)' },
  { key: 'loop-lint-edit.jsonl', id: 'e3f7a912-6c4b-4d21-8a0e-51b9c2d7f430', label: 'loop', stop1: true, stop2: true, why: 'same failing Edit 4x' },
  { key: 'loop-thinking-rehash.jsonl', id: 'loop-thinking-rehash', label: 'loop', stop1: true, stop2: true, why: 'identical thinking: three steers, then stop' },
  { key: 'loop-health-check.json', id: 'loop-health-check', label: 'loop', stop1: true, stop2: true, why: 'same parallel batch (order shuffled) 6x' },
  { key: 'loop-restate-plan.jsonl', id: 'loop-restate-plan', label: 'loop', stop1: false, stop2: false, why: 'plan paraphrased 5x: window similarity ~0.75, under the band (a miss)' },
  { key: 'loop-chant-export.json', id: 'loop-chant-export', label: 'loop', stop1: true, stop2: true, why: 'paragraph chanted 6x: three steers, then stop' },
  { key: 'rerun-failing-check.traj', id: 'rerun-failing-check', label: 'loop', stop1: true, stop2: true, why: 'same failing check rerun 4x (SWE-agent)' },
  { key: 'acme__cfgload-212.traj.json', id: 'acme__cfgload-212', label: 'loop', stop1: true, stop2: true, why: 'same no-op sed 4x, answered alike (mini-swe-agent v1)' },
  { key: 'trajectory-date-parser.json', id: 'trajectory-date-parser', label: 'loop', stop1: true, stop2: true, why: 'same failing pytest 3x (OpenHands V0)' },
  { key: 'events-backup-check.jsonl', id: 'events-backup-check', label: 'loop', stop1: true, stop2: true, why: 'same sudo journalctl 3x, only the summary reworded (OpenHands V1)' },
  { key: '8d3f2a10-5c6e-4b7a-9e21-0f4c3b2a1d90/toolu_ex_task', id: '8d3f2a10-5c6e-4b7a-9e21-0f4c3b2a1d90/toolu_ex_task', label: 'loop', stop1: true, stop2: true, why: 'sub-agent: same Grep 3x, no matches (stream-json)' },
  { key: 'responses-items-deploy-docs.jsonl', id: 'responses-items-deploy-docs', label: 'loop', stop1: true, stop2: true, why: 'same failing deploy 4x (Responses items)' },
  // clean
  { key: 'calm-rename.json', id: 'calm-rename', label: 'clean', stop1: false, stop2: false, why: 'three different calls' },
  { key: 'canon-calm', id: 'canon-calm', label: 'clean', stop1: false, stop2: false, why: 'one call' },
  { key: '6a0c1f2e-0000-4000-8000-00000000c0a1', id: '6a0c1f2e-0000-4000-8000-00000000c0a1', label: 'clean', stop1: false, stop2: false, why: 'two haiku' },
  { key: 'calm-readme-update.jsonl', id: 'b4e8a2f6-19c3-4d7e-a05b-6f2c8d1e3a97', label: 'clean', stop1: false, stop2: false, why: 'different calls' },
  { key: 'agent-a3f9c21.jsonl', id: 'b4e8a2f6-19c3-4d7e-a05b-6f2c8d1e3a97/agent-a3f9c21', label: 'clean', stop1: false, stop2: false, why: 'one call' },
  { key: 'rollout-2026-02-21T10-02-47-0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15.jsonl', id: '0199a7f0-1b3d-7c52-8e6a-2f4d9b0c7e15', label: 'clean', stop1: false, stop2: false, why: 'one parallel batch' },
  { key: 'checkpoint-refactor.json', id: 'checkpoint-refactor', label: 'clean', stop1: false, stop2: false, why: 'one call' },
  { key: 'session-2026-03-01T09-00-9a8b7c6d.json', id: '9a8b7c6d-1111-4222-8333-944455556666', label: 'clean', stop1: false, stop2: false, why: 'one call' },
  { key: 'calm-weather.json', id: 'calm-weather', label: 'clean', stop1: false, stop2: false, why: 'one call' },
  { key: 'conversations:1', id: 'conversations:1', label: 'clean', stop1: false, stop2: false, why: 'one answer' },
  { key: 'clean-poll-build.jsonl', id: 'clean-poll-build', label: 'clean', stop1: true, stop2: false, why: 'polls with changing answers: at 1 the second poll is refused before its answer is known' },
  { key: 'clean-numbered-list.jsonl', id: 'clean-numbered-list', label: 'clean', stop1: false, stop2: false, why: 'markdown list is excluded' },
  { key: 'clean-rerun-per-turn.jsonl', id: 'clean-rerun-per-turn', label: 'clean', stop1: false, stop2: false, why: 'each repeat is its own user turn' },
  { key: 'clean-read-files.jsonl', id: '0b5d8e21-9f3a-4e67-b2c4-7a1e6d9f8c03', label: 'clean', stop1: false, stop2: false, why: 'five different files' },
  { key: 'clean-retry-once.jsonl', id: '7d2a4c90-3e18-4b5f-a6d7-c8e9f0a1b2c4', label: 'clean', stop1: true, stop2: false, why: 'npm ci twice: at 1 the single retry is refused' },
  { key: 'clean-status-counter.jsonl', id: 'clean-status-counter', label: 'clean', stop1: false, stop2: false, why: 'counter changes, offsets change' },
  { key: 'clean-table-report.json', id: 'clean-table-report', label: 'clean', stop1: false, stop2: false, why: 'table rows are excluded' },
  { key: 'clean-fenced-code.json', id: 'clean-fenced-code', label: 'clean', stop1: false, stop2: false, why: 'fenced code is excluded' },
  { key: 'clean-wait-rollout.json', id: 'clean-wait-rollout', label: 'clean', stop1: true, stop2: false, why: 'status polls: at 1 refused; its repeated sentence is noted, not steered, because the polled answers progress' },
  { key: 'clean-review-template.jsonl', id: '5a9c3e7b-2d41-4f08-9b6a-e1c7d3f5a280', label: 'clean', stop1: false, stop2: false, why: 'templated thinking steers, but 0.87-0.89 is under the 0.88 stop bar after the third steer' },
  { key: 'calm-fix.traj', id: 'calm-fix', label: 'clean', stop1: false, stop2: false, why: 'six different commands (SWE-agent)' },
  { key: 'textkit-slug.traj.json', id: 'textkit-slug', label: 'clean', stop1: false, stop2: false, why: 'different commands (mini-swe-agent v2)' },
  { key: 'acme__widgets-7', id: 'acme__widgets-7', label: 'clean', stop1: false, stop2: false, why: 'two different commands (OpenHands evaluation)' },
  { key: 'acme__widgets-9', id: 'acme__widgets-9', label: 'clean', stop1: false, stop2: false, why: 'one command' },
  { key: '5b1e0c2a-7f3d-4e8a-9c61-2d4b8e0f9a17', id: '5b1e0c2a-7f3d-4e8a-9c61-2d4b8e0f9a17', label: 'clean', stop1: false, stop2: false, why: 'one command, finish (OpenHands V1 folder)' },
  { key: '8d3f2a10-5c6e-4b7a-9e21-0f4c3b2a1d90', id: '8d3f2a10-5c6e-4b7a-9e21-0f4c3b2a1d90', label: 'clean', stop1: false, stop2: false, why: 'different calls (stream-json main thread)' },
  { key: 'web-export-make-docs.json', id: 'web-export-make-docs', label: 'clean', stop1: false, stop2: false, why: 'three different calls (loglines export)' },
  { key: 'responses-request-pypi-version.json', id: 'responses-request-pypi-version', label: 'clean', stop1: false, stop2: false, why: 'one call, one web search (Responses request)' },
  { key: 'responses-log-weather.jsonl', id: 'responses-log-weather', label: 'clean', stop1: false, stop2: false, why: 'one call (Response objects)' },
  // issue 13, tool batch: think between identical calls, recurring failures, name-segment patterns, cycles
  { key: 'loop-booking-think.jsonl', id: 'loop-booking-think', label: 'loop', stop1: true, stop2: true, why: 'same declined booking 5x between think calls: think is transparent' },
  { key: 'clean-think-retry.json', id: 'clean-think-retry', label: 'clean', stop1: true, stop2: false, why: 'one retry after a timeout, think between: at 1 the retry is refused' },
  { key: 'loop-recurring-push.jsonl', id: '5d81c3a0-7e24-4b9f-a316-2c0e9f4b7d18', label: 'loop', stop1: false, stop2: false, why: 'same 403 in five user turns: recurring_failure is noted only (a miss at stop, by design)' },
  { key: 'clean-failing-tests-per-turn.jsonl', id: 'clean-failing-tests-per-turn', label: 'clean', stop1: false, stop2: false, why: 'tests fail in three turns, each time differently' },
  { key: 'loop-clickhouse-query.jsonl', id: 'loop-clickhouse-query', label: 'loop', stop1: true, stop2: true, why: 'same failing query 4x: clickhouse_query is not a read-only click' },
  { key: 'clean-browser-wait.jsonl', id: 'clean-browser-wait', label: 'clean', stop1: false, stop2: false, why: 'browser_snapshot while a page loads: read-only by name segment' },
  // Issue 28: no_progress (4 stale rounds) steers this cycle from round 6 and, its steers unheeded, stops at round 9.
  { key: 'loop-cycle-test-read.jsonl', id: 'a91e4f27-3c58-4d0b-8e61-7f2b9d05c3e4', label: 'loop', stop1: true, stop2: true, why: 'test -> read, 5 periods, same answers: tool_cycle steers; no_progress steers at round 6 and stops at round 9 after three unheeded steers' },
  { key: 'loop-cycle-signup-form.jsonl', id: 'loop-cycle-signup-form', label: 'loop', stop1: false, stop2: false, why: 'navigate -> type -> click, 4 periods: steered' },
  { key: 'loop-cycle-stash-test.json', id: 'loop-cycle-stash-test', label: 'loop', stop1: false, stop2: false, why: 'stash -> test -> pop -> test, 4 periods: steered' },
  { key: 'loop-cycle-terraform.jsonl', id: 'loop-cycle-terraform', label: 'loop', stop1: false, stop2: false, why: 'period 5, 4 periods: steered' },
  { key: 'loop-cycle-lint-three.json', id: '4e7a2c19-8b3d-4f60-a1c5-93d8e0b27f46', label: 'loop', stop1: false, stop2: false, why: 'period 3, only 3 periods: noted (the disputed length)' },
  { key: 'clean-cycle-warmup.json', id: 'clean-cycle-warmup', label: 'clean', stop1: false, stop2: false, why: 'sleep -> health 503 3x, then 200: noted only' },
  { key: 'clean-cycle-readiness.jsonl', id: '0f3b8d62-91a4-4c7e-b5d0-6e2a4c8f1b93', label: 'clean', stop1: false, stop2: false, why: 'three readiness checks 3x, then ready: noted only' },
  { key: 'clean-cycle-dns-wait.jsonl', id: 'clean-cycle-dns-wait', label: 'clean', stop1: false, stop2: false, why: 'quiet DNS poll, 6 periods: steered from the fourth (the one false steer), never stopped' },
  { key: 'clean-cycle-pod-rollout.jsonl', id: 'clean-cycle-pod-rollout', label: 'clean', stop1: false, stop2: false, why: 'sleep -> get pods, answers change' },
  { key: 'clean-cycle-paginate.jsonl', id: 'clean-cycle-paginate', label: 'clean', stop1: false, stop2: false, why: 'next -> wait -> snapshot, pages change' },
  { key: 'clean-cycle-queue-drain.jsonl', id: 'clean-cycle-queue-drain', label: 'clean', stop1: false, stop2: false, why: 'period 4 of stats, answers change' },
  // Issues 13 (text items) and 21: hard negatives, labeled clean …
  { key: 'clean-changes-look-good.json', id: 'clean-changes-look-good', label: 'clean', stop1: false, stop2: false, why: '"The changes look good. I\'ve:" before a new list each cycle: recurring_phrase, noted' },
  { key: 'clean-check-output.jsonl', id: '4e1b7c2a-8d3f-4a6e-9b15-c0d2e7f81a43', label: 'clean', stop1: false, stop2: false, why: '"Let me check the output." / "I\'ll run the tests again." openers: no chant across rounds' },
  { key: 'clean-change-summary.json', id: 'clean-change-summary', label: 'clean', stop1: false, stop2: false, why: 'numbered change summaries: opener and closer recur, noted' },
  { key: 'clean-review-per-file.jsonl', id: 'clean-review-per-file', label: 'clean', stop1: false, stop2: false, why: 'per-file review template: closer recurs among new findings, noted' },
  { key: 'clean-fix-cycle.jsonl', id: 'clean-fix-cycle', label: 'clean', stop1: false, stop2: false, why: 'fix cycle, edits differ: a 13-word test narration is each test round, under per_round_min_words' },
  { key: 'clean-narrated-edits.jsonl', id: 'clean-narrated-edits', label: 'clean', stop1: false, stop2: false, why: 'one narration sentence per edit of another file: under per_round_min_words' },
  { key: 'clean-pipelines.jsonl', id: '9c3f1e5a-2b7d-4e80-a6c4-d18e2f9b0c57', label: 'clean', stop1: false, stop2: false, why: 'prose quoting shell pipelines and a real table: no loop' },
  { key: 'clean-box-panels.json', id: 'clean-box-panels', label: 'clean', stop1: false, stop2: false, why: 'box-drawing dividers are thematic breaks (they were a near-repetition stop)' },
  { key: 'clean-checklist-template.json', id: 'clean-checklist-template', label: 'clean', stop1: false, stop2: false, why: 'checklist template whose file name changes: copies do not touch, noted' },
  { key: 'clean-status-preamble.jsonl', id: '8f4a2d6c-3e1b-4c97-a5d0-7b9e1f3c2a68', label: 'clean', stop1: false, stop2: false, why: 'a 43-word preamble before a changing list: round_share 0.51-0.58, under dominance_min' },
  // … and the misses they stood for, labeled loop.
  { key: 'loop-thinking-pipeline.jsonl', id: '2d8e6f14-7a3c-4b59-8e21-f0c5a9d3b7e6', label: 'loop', stop1: true, stop2: true, why: 'identical thinking quoting a pipeline (was dropped as a table row): three steers, then stop' },
  { key: 'loop-repeated-plan.jsonl', id: 'loop-repeated-plan', label: 'loop', stop1: true, stop2: true, why: 'the same plan six times: repeated_response steers at the third, stops at the sixth' },
  { key: 'loop-status-monologue.jsonl', id: 'loop-status-monologue', label: 'loop', stop1: false, stop2: false, why: 'a six-word status three times: repeated_response steers, too few rounds to stop' },
  { key: 'loop-block-four.json', id: 'loop-block-four', label: 'loop', stop1: true, stop2: true, why: 'a long block four times in one response, then re-emitted whole each round: stop' },
  { key: 'loop-long-question.json', id: 'loop-long-question', label: 'loop', stop1: false, stop2: false, why: 'one 68k-character reply repeating a question 300 times: one round, one steer' },
  { key: 'loop-chant-apology.jsonl', id: '6b0f2c8e-91d4-4e3a-b7a2-3c5e8d1f0a96', label: 'loop', stop1: true, stop2: true, why: 'an apology chanted 30 times each round while the calls vary: dominant, stops' },
  // Issue 28, no progress: the two shapes of the issue (loops) and its five negative shapes (clean).
  { key: 'loop-no-progress-compose.jsonl', id: '5d2e8c41-7a3b-4f60-9c12-3e8b7d6a5f01', label: 'loop', stop1: true, stop2: true, why: 'Read (same answer) alternating with an Edit/Write failing one of two errors, arguments drifting: no_progress steers at round 8, stops at 11' },
  { key: 'loop-no-progress-editor.jsonl', id: 'loop-no-progress-editor', label: 'loop', stop1: true, stop2: true, why: 'editor str_replace failing one of two errors between views (one edit lands early): no_progress steers at round 9, stops at 12' },
  { key: 'clean-no-progress-poll.jsonl', id: '6e3f9d52-8b4c-4071-8d23-4f9c8e7b6a12', label: 'clean', stop1: false, stop2: false, why: 'BashOutput of a growing test run, 13 polls, every answer longer: BashOutput is read-only by default (issue 28 item 2), so not even at 1' },
  { key: 'clean-no-progress-fix-cycle.jsonl', id: 'clean-no-progress-fix-cycle', label: 'clean', stop1: false, stop2: false, why: 'test -> read -> edit, the test output changes each time and the edits land' },
  { key: 'clean-no-progress-parallel-edits.jsonl', id: 'clean-no-progress-parallel-edits', label: 'clean', stop1: false, stop2: false, why: 'ten parallel edits fail (not read yet), one read of each, then all ten succeed' },
  { key: 'clean-no-progress-retry-after-read.jsonl', id: 'clean-no-progress-retry-after-read', label: 'clean', stop1: false, stop2: false, why: 'an edit fails the same way 4x, but each read between returns something new; then it lands' },
  { key: 'clean-no-progress-edit-lands.jsonl', id: '7f4a0e63-9c5d-4182-9e34-5a0d9f8c7b23', label: 'clean', stop1: false, stop2: false, why: 'lint fails 3x, each edit between succeeds (and the error moves): progress' },
  // Issue 28, item 3: a plan whose steps open with "Then" between varied, answered calls.
  { key: 'clean-plan-beside-work.jsonl', id: 'clean-plan-beside-work', label: 'clean', stop1: false, stop2: false, why: 'a plan of "Then …" steps (connector openings 7 of 8) beside new reads and writes: connector_stalling noted, not steered' },
  // Issue 54: structure taken for prose, and a connector run in reasoning beside new work.
  { key: 'clean-review-sections.jsonl', id: 'clean-review-sections', label: 'clean', stop1: false, stop2: false, why: 'numbered review sections each closed by "OK." (list lines between): no connector run, never flagged' },
  { key: 'clean-think-wait-beside-work.jsonl', id: 'clean-think-wait-beside-work', label: 'clean', stop1: false, stop2: false, why: '"wait" three times in a row in reasoning while each round reads a new file: connector_stalling noted, not steered' },
  // One session per kind no other fixture emits (test/registry.test.ts: every kind is emitted by some fixture).
  { key: 'kinds-ceiling', id: 'kinds-ceiling', label: 'loop', stop1: true, stop2: true, why: 'the same deploy re-queued 18x, answers changing: past the ceiling (15) at any max_strikes' },
  { key: 'kinds-connector-output', id: 'kinds-connector-output', label: 'loop', stop1: false, stop2: false, why: '"Wait," re-opening seven sentences: connector_stalling steers, one round' },
  { key: 'kinds-drift', id: 'kinds-drift', label: 'clean', stop1: false, stop2: false, why: 'an enumeration 1..7: predictable_drift, noted at 0.35' },
  { key: 'kinds-connector-thinking', id: 'kinds-connector-thinking', label: 'loop', stop1: false, stop2: false, why: '"wait, but actually" 3x in thinking: connector_stalling steers, one round' },
  { key: 'kinds-runaway', id: 'kinds-runaway', label: 'loop', stop1: false, stop2: false, why: 'opaque reasoning 6k, 12k, 18k tokens against a short answer: reasoning_runaway, capped at steer' },
  // Issue 28 item 4: the shape (a Read, the same Read three times answered "File unchanged",
  // then `cat -n` and 25 rounds of good work) in two formats: stopped at the third identical read.
  { key: 'loop-recover-cat-n.jsonl', id: '3c7e1a94-2b5d-4f86-9a03-6d1e8f2b4c70', label: 'loop', stop1: true, stop2: true, why: 'Read answered "File unchanged" 3x, then cat -n and 24 rounds of work: stopped at round 4, every prevented round cut' },
  { key: 'loop-recover-read-file.jsonl', id: 'loop-recover-read-file', label: 'loop', stop1: true, stop2: true, why: 'read_file answered "File unchanged" 3x, then cat -n and 24 rounds of work (canonical, Gemini CLI names)' },
  // Issue 28 item 2's two constraints under the default observation_tools.
  { key: 'loop-six-reads.jsonl', id: '9a4d2e71-6c3b-4f08-8e15-2b7f0c9d3a46', label: 'loop', stop1: true, stop2: true, why: 'the same Read answered "File unchanged" six times: Read is not read-only by default, refused at the third (at 3, the fourth)' },
  { key: 'clean-poll-bashoutput.jsonl', id: '2f8b6c13-4e9a-4d27-b1c0-8a3e5d7f9b24', label: 'clean', stop1: false, stop2: false, why: 'a background job polled 49 times through BashOutput, every answer further along: read-only by default, never stopped' },
  { key: 'clean-poll-shell-pipeline.jsonl', id: '7d3a9b52-4e9a-4d27-b1c0-8a3e5d7f9b24', label: 'clean', stop1: false, stop2: false, why: 'issue 28: the same job polled 49 times through `cat job.output | grep -oP … | tail -1`, every answer a larger number: read-only by the default shell rules, never stopped (the ceiling stopped it at round 17 before)' },
  // The agents' own recordings (fixtures/agents/, test/agents/record.mjs): the same failing call three times.
  { key: '1e58e5f4-926e-44f6-aa09-4ab19af0dfff.jsonl', id: '1e58e5f4-926e-44f6-aa09-4ab19af0dfff', label: 'loop', stop1: true, stop2: true, why: 'Claude Code 2.1.328: cat missing.txt 3x, refused at the third' },
  { key: 'rollout-2026-12-02T04-18-58-01a234fa-24d5-7a20-ae16-6489f8368815.jsonl', id: '01a234fa-24d5-7a20-ae16-6489f8368815', label: 'loop', stop1: true, stop2: true, why: 'Codex 0.169.0: the same failing exec_command 3x' },
  { key: 'a66ac3ae-8cb4-42bb-b476-2107cab49788.jsonl', id: 'a66ac3ae-8cb4-42bb-b476-2107cab49788', label: 'loop', stop1: true, stop2: true, why: 'Claude Code 2.1.332: cat missing.txt 3x, refused at the third' },
  { key: 'rollout-2026-12-07T03-47-46-01a24e9d-61e5-7283-87c4-a186263916ff.jsonl', id: '01a24e9d-61e5-7283-87c4-a186263916ff', label: 'loop', stop1: true, stop2: true, why: 'Codex 0.171.0: the same failing exec_command 3x' },
  { key: 'session-2026-12-02T04-18-a89c213f.jsonl', id: 'a89c213f-e49b-427a-a654-c718837cfb3c', label: 'loop', stop1: true, stop2: true, why: 'Gemini CLI 0.61.0: the same failing run_shell_command 3x' },
  // Issue 32, traces (fixtures/otel/): the agents' own telemetry of one run each (test/agents/record-otel.mjs), and hand-written ones.
  { key: '4123ae11-414e-4de4-bbce-e658b2744d0b', id: '4123ae11-414e-4de4-bbce-e658b2744d0b', label: 'loop', stop1: true, stop2: true, why: 'Claude Code 2.1.328 OTLP logs and spans: cat missing.txt failing 5x' },
  { key: '01a23593-7f75-76d1-990c-6c190304804f', id: '01a23593-7f75-76d1-990c-6c190304804f', label: 'loop', stop1: true, stop2: true, why: 'Codex 0.169.0 OTLP logs: the same failing exec_command 5x' },
  { key: '1cb732af-9ca0-4a51-9b3a-6e1f1a4cdb13', id: '1cb732af-9ca0-4a51-9b3a-6e1f1a4cdb13', label: 'loop', stop1: true, stop2: true, why: 'Gemini CLI 0.61.0 telemetry outfile: the same failing run_shell_command 4x (its own loop detection ended it)' },
  { key: 'genai-billing-retry', id: 'genai-billing-retry', label: 'loop', stop1: true, stop2: true, why: 'GenAI chat/execute_tool spans: the same failing run_tests 3x' },
  { key: 'genai-release-notes', id: 'genai-release-notes', label: 'clean', stop1: false, stop2: false, why: 'GenAI 1.36 events: read, then write, then the answer' },
  { key: 'oi-config-loop', id: 'oi-config-loop', label: 'loop', stop1: true, stop2: true, why: 'OpenInference spans: the same failing read_file 3x' },
  { key: 'jaeger-weather', id: 'jaeger-weather', label: 'clean', stop1: false, stop2: false, why: 'Jaeger export: one forecast call, then the answer' },
  // Issue 54: the same failure again with reads between, and a broken working directory answering
  // every command alike (repeated_failure, same_error steer, then stop after unheeded steers) …
  { key: 'loop-edit-reread.jsonl', id: '3c9e1d20-5b7a-4e61-8f02-6a1d2e3f4b51', label: 'loop', stop1: true, stop2: true, why: 'the same failing Edit re-sent with reads between: repeated_failure, stopped after unheeded steers' },
  { key: 'loop-broken-cwd.jsonl', id: '5e1a3f42-7d9c-4083-a124-8c3f4a5b6d73', label: 'loop', stop1: true, stop2: true, why: 'different commands, one error (deleted cwd): same_error, stopped after unheeded steers' },
  // … and the progress beside them: a different edit that lands, searches that find nothing.
  { key: 'clean-edit-reread-lands.jsonl', id: '4d0f2e31-6c8b-4f72-9013-7b2e3f4a5c62', label: 'clean', stop1: false, stop2: false, why: 'an edit fails, the file is read, a different edit lands' },
  { key: 'clean-search-nothing.jsonl', id: '6f2b4a53-8e0d-4194-b235-9d4a5b6c7e84', label: 'clean', stop1: false, stop2: false, why: 'different searches that find nothing: answers, not failures' },
  // Issue 55: the five new agents' own recordings (fixtures/agents/, test/agents/record-more.mjs), and hand-written store files.
  { key: '1796596934563_14cgf.messages.json', id: '1796596934563_14cgf', label: 'loop', stop1: true, stop2: true, why: 'Cline 3.0.65 recording: cat missing.txt failing again and again' },
  { key: '4bd4f7fb-15a8-44ed-ba5d-09bca33208b6', id: '4bd4f7fb-15a8-44ed-ba5d-09bca33208b6', label: 'loop', stop1: true, stop2: true, why: 'Copilot CLI 1.0.102 recording: the same failing command (exit 1 under success:true)' },
  { key: 'ses_db29cc9f1ffe23b2zs1fHE7C2d', id: 'ses_db29cc9f1ffe23b2zs1fHE7C2d', label: 'loop', stop1: true, stop2: true, why: 'Kilo 7.7.7 recording (SQLite): the same failing bash call' },
  { key: 'ses_db2a2c5eeffeMBjzIA4dptJxI1', id: 'ses_db2a2c5eeffeMBjzIA4dptJxI1', label: 'loop', stop1: true, stop2: true, why: 'OpenCode 1.18.33 recording (SQLite): the same failing bash call' },
  { key: '364855b3-2539-4597-ba55-212f55676c9c.jsonl', id: '364855b3-2539-4597-ba55-212f55676c9c', label: 'loop', stop1: true, stop2: true, why: 'Qwen Code 0.24.4 recording: the same failing shell call' },
  { key: 'loop-halt.messages.json', id: '1796590000000_halt1', label: 'loop', stop1: true, stop2: true, why: 'Cline: the same call until its own guard halts the run' },
  { key: 'halt-cancel.jsonl', id: '9d0c1f00-0000-4000-8000-00000000a001', label: 'loop', stop1: true, stop2: true, why: 'Qwen Code: the same call until its own loop guard halts the run' },
  { key: '5a1f0c2e-0000-4000-8000-000000000001', id: '5a1f0c2e-0000-4000-8000-000000000001', label: 'clean', stop1: false, stop2: false, why: 'Copilot CLI: a denied call, a sub-agent and an abort, nothing repeated' },
  { key: '5a1f0c2e-0000-4000-8000-000000000001/call_task', id: '5a1f0c2e-0000-4000-8000-000000000001/call_task', label: 'clean', stop1: false, stop2: false, why: 'Copilot CLI: the sub-agent\'s one round' },
  { key: 'ses_parent01', id: 'ses_parent01', label: 'clean', stop1: false, stop2: false, why: 'OpenCode export: varied work, then the user interrupts' },
  { key: 'ses_child01', id: 'ses_child01', label: 'clean', stop1: false, stop2: false, why: 'OpenCode export: the child session\'s varied work' },
  { key: '1777000000000', id: '1777000000000', label: 'loop', stop1: true, stop2: true, why: 'VS Code task folder (Cline\'s extension): npm test failing three times in a row' },
  { key: '1777000100000', id: '1777000100000', label: 'clean', stop1: false, stop2: false, why: 'VS Code task folder (Kilo Code, macOS): one question, one answer' },
  { key: '1777000200000', id: '1777000200000', label: 'clean', stop1: false, stop2: false, why: 'VS Code task folder: a build failing with a new error after each fix' },
  { key: '1a2b3c4d-0000-4000-8000-00000000000a', id: '1a2b3c4d-0000-4000-8000-00000000000a', label: 'loop', stop1: true, stop2: true, why: 'Cursor: the same file read six times with the same answer' },
  { key: '2b3c4d5e-0000-4000-8000-0000000000b1', id: '2b3c4d5e-0000-4000-8000-0000000000b1', label: 'clean', stop1: false, stop2: false, why: 'Cursor: a search and a failed read in one response, then the answer' },
  { key: '2b3c4d5e-0000-4000-8000-0000000000b2', id: '2b3c4d5e-0000-4000-8000-0000000000b2', label: 'clean', stop1: false, stop2: false, why: 'Cursor: the sub-chat\'s one search' },
  { key: '01a24dfd-3d19-77ed-94e4-0e8b3aff0c28', id: '01a24dfd-3d19-77ed-94e4-0e8b3aff0c28', label: 'loop', stop1: true, stop2: true, why: 'pi 0.73.1 recording: the same failing cat three times' },
  { key: '802a1f6c-89f1-4e61-8776-74998e5d34a4', id: '802a1f6c-89f1-4e61-8776-74998e5d34a4', label: 'loop', stop1: true, stop2: true, why: 'Droid 0.225.2 recording: the same failing cat three times' },
  { key: '1a30564e-0374-4baa-93c9-b018880209e9', id: '1a30564e-0374-4baa-93c9-b018880209e9', label: 'loop', stop1: true, stop2: true, why: 'OpenClaw 2026.9.6 recording: the same failing cat three times' },
  { key: 'droid-worker', id: 'droid-worker', label: 'loop', stop1: true, stop2: true, why: 'Droid (hand-made, a worker session): the same failing build three times' },
  { key: '4f2c9a17-8d3e-4b61-a0c5-7e19d2b8f364.jsonl', id: '4f2c9a17-8d3e-4b61-a0c5-7e19d2b8f364', label: 'loop', stop1: true, stop2: true, why: 'Kimi CLI 0.42 (hand-made): the same failing pytest three times' },
  { key: '4f2c9a17-8d3e-4b61-a0c5-7e19d2b8f364_read_1.jsonl', id: '4f2c9a17-8d3e-4b61-a0c5-7e19d2b8f364_read_1', label: 'clean', stop1: false, stop2: false, why: 'Kimi CLI 0.42 (hand-made): the ReadContext sub-agent reads one file' },
  { key: 'release-build.jsonl', id: 'release-build', label: 'loop', stop1: false, stop2: false, why: 'Kimi CLI (hand-made, 1.49 shape): the same failing build with searches between: repeated_failure and no_progress steer' },
  { key: '20261123_090000_5e1f0a2b', id: '20261123_090000_5e1f0a2b', label: 'loop', stop1: true, stop2: true, why: 'Hermes Agent (hand-made): the same failing npm test four times' },
  { key: '20261123_090500_9c4d7e61', id: '20261123_090500_9c4d7e61', label: 'clean', stop1: false, stop2: false, why: 'Hermes Agent (hand-made): a delegated sub-agent, one refused fetch and a grep' },
  { key: '20261123_100000_41aa07c3', id: '20261123_100000_41aa07c3', label: 'clean', stop1: false, stop2: false, why: 'Hermes Agent (hand-made): a chat with no tool call' },
  { key: 'cron_3b7c1d2e4f50_20261124_010000', id: 'cron_3b7c1d2e4f50_20261124_010000', label: 'clean', stop1: false, stop2: false, why: 'Hermes Agent 0.18.0 (hand-made): a cron run, two different searches' },
  { key: 'pi-branched', id: 'pi-branched', label: 'clean', stop1: false, stop2: false, why: 'pi (hand-made): a rewound branch; the branch taken does different work' },
];

describe('sweep over the bundled corpus', () => {
  it('tool_batch.max_strikes=1:4:1: stop counts never increase with the threshold, and the tightest value stops something', async () => {
    const r = await run(['tool_batch.max_strikes=1:4:1']);
    expect(r.points.map((p) => p.values['tool_batch.max_strikes'])).toEqual([1, 2, 3, 4]);
    const sessions = r.points.map((p) => p.stopped.sessions);
    const rounds = r.points.map((p) => p.stopped.rounds);
    for (let i = 1; i < r.points.length; i++) {
      expect(sessions[i]).toBeLessThanOrEqual(sessions[i - 1] as number);
      expect(rounds[i]).toBeLessThanOrEqual(rounds[i - 1] as number);
    }
    expect(sessions[0]).toBeGreaterThan(sessions[3] as number);
    expect(new Set(r.points.map((p) => p.sessions)).size).toBe(1);
  });

  it('every session under fixtures/ is labeled, and every label matches a session', async () => {
    const r = await run(['tool_batch.max_strikes=2:2:1'], { labels: LABELS });
    expect(r.labels).toMatchObject({ loop: 72, clean: 76, unmatched: [] });
    expect(r.points[0]?.metrics?.unlabeled_sessions).toBe(0);
    expect(r.points[0]?.sessions).toBe(HAND.length);
  });

  it('the hand-checked table agrees with the labels file', async () => {
    const labels = await loadLabels(LABELS);
    expect([...labels.keys()].sort()).toEqual(HAND.map((h) => h.key).sort());
    for (const h of HAND) expect(labels.get(h.key)?.label, h.key).toBe(h.label);
  });

  it('max_strikes=1, positive stop: the confusion matrix worked out by hand', async () => {
    // From HAND: loops stopped 40 of 54 (not canon-chanting, conversations:2, loop-restate-plan, the
    // recurring push, five of the six cycles, loop-status-monologue, loop-long-question nor the
    // three text kinds that only steer); clean stopped 4 of 61 (clean-poll-build, clean-retry-once,
    // clean-wait-rollout, clean-think-retry). Issue 28 added the two no-progress loops and
    // loop-cycle-test-read (no_progress stops it); its item 4 the two recovering loops and item 2
    // the six identical reads (three stops at 1 and 2), and the BashOutput poll, clean. BashOutput
    // being read-only by default, clean-no-progress-poll is no longer refused at 1 (5 -> 4 FP).
    // The agents' three recordings are stops at 1 and 2.
    // Issue 32 added five trace loops, each the same failing call three to five times (stops at 1
    // and 2), and two clean traces with different calls (never stopped). The shell-pipeline poll
    // (issue 28 item 2) is read-only by the default shell rules, so never stopped: TN + 1. The
    // agents' three recordings of the same failing `cat` are still stops: their last answer failed.
    //            predicted loop   predicted clean
    // Issues 54 and 55 add nine loops stopped at every setting (two fixtures of the new failure
    // shapes, seven recordings of the new agents repeating one failing call) and six clean sessions
    // never flagged: TP + 9, TN + 6 here and below.
    // Issue 58's VS Code task folders and Cursor add two loops stopped at 1 and 2 (the same failing
    // command three times, the same read six times) and four clean sessions never flagged: TP + 2,
    // TN + 4 here and below. Its recordings of pi, Droid and OpenClaw add three loops stopped at 1
    // and 2 (the same failing cat three times), and its hand-made Droid worker the same (the same
    // failing build three times) and pi branch clean: TP + 4, TN + 1 here and below.
    // Issue 55 item 4's recordings of Claude Code 2.1.332 and Codex 0.171.0 (the older releases'
    // kept) add two loops stopped at 1 and 2 (the same failing cat three times): TP + 2 here and below.
    // Issue 58's Kimi CLI fixtures: the hand-made 0.42 session stopped at 1 and 2 (the same failing
    // pytest three times), its sub-agent clean, and the 1.49-shaped build loop with searches between
    // only steered (repeated_failure, no_progress): TP + 1, TN + 1, FN + 1 here and below.
    // Issue 58's Hermes Agent fixtures: the same failing npm test four times stopped at 1 and 2, its
    // sub-agent, a chat and a cron run clean: TP + 1, TN + 3 here and below.
    // Issue 54's review closed section by section with "OK." and reasoning saying "wait" three times
    // beside new reads: two clean sessions never flagged, TN + 2 here and below.
    //   loop         TP 57             FN 15
    //   clean        FP 4              TN 72
    // precision 57/61, recall 57/72, FPR 4/76
    const r = await run(['tool_batch.max_strikes=1:4:1'], { labels: LABELS, maxFpr: '0.1' });
    const p = at(r, 1);
    expect(p.metrics).toMatchObject({ tp: 57, fp: 4, tn: 72, fn: 15, unlabeled_sessions: 0 });
    expect(p.metrics?.precision).toBeCloseTo(57 / 61, 12);
    expect(p.metrics?.recall).toBeCloseTo(57 / 72, 12);
    expect(p.metrics?.fpr).toBeCloseTo(4 / 76, 12);
    expect([...p.positive_sessions].sort()).toEqual(HAND.filter((h) => h.stop1).map((h) => h.id).sort());

    // The default: the polls and the single retries are no longer refused.
    const d = at(r, 2);
    expect(d.metrics).toMatchObject({ tp: 57, fp: 0, tn: 76, fn: 15 });
    expect(d.metrics?.recall).toBeCloseTo(57 / 72, 12);
    expect(d.metrics?.precision).toBe(1);
    expect(d.metrics?.fpr).toBe(0);
    expect([...d.positive_sessions].sort()).toEqual(HAND.filter((h) => h.stop2).map((h) => h.id).sort());

    // 1 keeps under the bound (4/59) but ties 2 on recall, and the more conservative tied point
    // wins; 3 loses the loops repeated exactly three times (a batch, then two identical ones),
    // stopped at 2 and only noted at 3 (the text loops stop at any max_strikes).
    // At 3 the three no-progress stops stay (no_progress does not read max_strikes): 21 + 3; the
    // six identical reads are refused at the fourth (+1); the two recovering loops repeat only three times.
    // Of the traces, the ones repeating four or five times still stop at 3 (Claude Code, Codex, Gemini
    // CLI); the three-times ones (genai-billing-retry, oi-config-loop) are only noted: 25 + 3.
    // Of issues 54 and 55's nine, the two failure-shape fixtures and the two hand-written halts (the
    // same call until the agent's own guard stops it) still stop at 3; the five recordings repeat the
    // failing call three times (a batch, then two identical ones) and are only noted: 28 + 4. So is
    // issue 58's task folder loop (three times); its Cursor loop (six reads) still stops at 3: 32 + 1.
    // The two recordings of issue 55 item 4 repeat it three times: only noted at 3, 33 still; so
    // does issue 58's hand-made Kimi CLI session. Its hand-made Hermes loop repeats four times: a stop at 3, 34.
    expect(at(r, 3).metrics).toMatchObject({ tp: 34, fp: 0 });
    expect(r.recommended?.values).toEqual({ 'tool_batch.max_strikes': 2 });
    expect(r.recommended?.fpr).toBe(0);
  });

  it('--positive changes the predicate: steer adds the steered cycles and clean sessions, noted adds the noted ones', async () => {
    const stop = at(await run(['tool_batch.max_strikes=2:2:1'], { labels: LABELS }), 2);
    const steer = await run(['tool_batch.max_strikes=2:2:1'], { labels: LABELS, positive: 'steer' });
    const noted = at(await run(['tool_batch.max_strikes=2:2:1'], { labels: LABELS, positive: 'noted' }), 2);
    expect(steer.positive).toBe('steer');
    const s = at(steer, 2);

    // The replay is the same; only what counts as "flagged" moves.
    expect(s.stopped).toEqual(stop.stopped);
    expect(s.steered).toEqual(stop.steered);

    expect(stop.metrics).toMatchObject({ tp: 57, fp: 0 });
    // Steer: the five cycles of repeating answers that reach four periods (tool_batch.cycle_enforce
    // steer) are caught; two legitimate sessions steer: the templated thinking, and the quiet DNS
    // poll whose answers do not move for six periods. The repeated status sentence of a poll whose
    // answers progress, and every phrase that recurs once per round, is only noted (seed 000's
    // "progress that happens to look alike"; issue 21). The loops that merely steer are gained
    // too: three repeated responses (canon-chanting, conversations:2, loop-status-monologue) and
    // the one long reply, and the three text kinds that only steer (connector stalling in output
    // and in thinking, reasoning runaway).
    // Issue 28: the three-period cycle loop-cycle-lint-three (4e7a2c19) is now steered by
    // no_progress (six stale rounds), and loop-cycle-test-read (a91e4f27) is a stop, not an
    // addition; the two no-progress loops are stops. No clean session is steered by no_progress;
    // the plan beside work (clean-plan-beside-work) is noted, not steered (item 3).
    // Issue 28 items 2 and 4: three more loops (stops) and one clean poll (never flagged).
    // The five trace loops are stops, so steered too; the two clean traces are not: tp 42 + 3 + 5, tn 53 + 1 + 2;
    // the shell-pipeline poll is never flagged: tn + 1. The two recordings of the bumped releases: tp + 2.
    // Issue 58's Kimi CLI fixtures: the 0.42 session (a stop) and the build loop (a steer): tp + 2; the sub-agent: tn + 1.
    // Issue 58's Hermes Agent fixtures: the loop (a stop): tp + 1; the sub-agent, the chat and the cron run: tn + 3.
    // Issue 54's review sections and reasoning "wait" beside new reads: never steered, tn + 2.
    expect(s.metrics).toMatchObject({ tp: 70, fp: 2, tn: 74, fn: 2 });
    const added = s.positive_sessions.filter((id) => !stop.positive_sessions.includes(id)).sort();
    expect(added).toEqual(
      [
        '4e7a2c19-8b3d-4f60-a1c5-93d8e0b27f46',
        '5a9c3e7b-2d41-4f08-9b6a-e1c7d3f5a280',
        'canon-chanting',
        'clean-cycle-dns-wait',
        'conversations:2',
        'kinds-connector-output',
        'kinds-connector-thinking',
        'kinds-runaway',
        'loop-ab-cycle',
        'loop-cycle-signup-form',
        'loop-cycle-stash-test',
        'loop-cycle-terraform',
        'loop-long-question',
        'loop-status-monologue',
        'release-build',
      ].sort(),
    );
    // Noted: the three-period cycles (a loop and two warm-up polls), the recurring push and the
    // read-only browser wait are reported without acting on them; so is every clean session whose
    // phrase recurs once per round (recurring_phrase, noted only), and the enumeration
    // (predictable_drift, noted at 0.35).
    // The plan beside work (item 3) is one of the noted clean sessions: fp 15.
    // The traces add as at steer: five stopped loops, two clean sessions with nothing noted; issue 28
    // items 2 and 4 three stopped loops and two clean polls with nothing noted; the bumped releases' two recordings tp + 2.
    // Issue 58's Kimi CLI fixtures as at steer: tp + 2, tn + 1.
    // Issue 58's Hermes Agent fixtures as at steer: tp + 1, tn + 3.
    // Issue 54: the reasoning "wait" beside new reads is noted (fp + 1); the review sections have nothing (tn + 1).
    expect(noted.metrics).toMatchObject({ tp: 71, fp: 16, tn: 60, fn: 1 });
    for (const id of [
      '8f4a2d6c-3e1b-4c97-a5d0-7b9e1f3c2a68',
      'clean-change-summary',
      'clean-changes-look-good',
      'clean-checklist-template',
      'clean-fix-cycle',
      'clean-narrated-edits',
      'clean-review-per-file',
      'clean-think-wait-beside-work',
      'kinds-drift',
    ]) {
      expect(noted.positive_sessions).toContain(id);
    }
    for (const id of ['5d81c3a0-7e24-4b9f-a316-2c0e9f4b7d18', 'clean-cycle-warmup']) {
      expect(noted.positive_sessions).toContain(id);
      expect(s.positive_sessions).not.toContain(id);
    }
  });

  it('issue 13: the cycle calibration: steering from three periods adds two warm-up polls (the loop it once added is steered by no_progress now), from four (the default) none; no cycle ever stops', async () => {
    const steer = await run(['tool_batch.cycle_enforce_periods=3,4,5'], { labels: LABELS, positive: 'steer' });
    const [three, four, five] = steer.points;
    // Issue 28: the loop three periods gained (loop-cycle-lint-three) is steered by no_progress at
    // any period now, so three adds only the two warm-up polls: tp 42 at three and four (the
    // agents' three recordings are stops at every period, and so are the five trace loops: + 5).
    // Issue 28 items 2 and 4 add three loops stopped at every period: +3; the bumped releases' two recordings: +2.
    // Issue 58's two Kimi CLI loops: a stop and a steer at every period, + 2.
    // Issue 58's Hermes Agent loop: a stop at every period, + 1.
    expect(three?.metrics).toMatchObject({ tp: 70, fp: 4 });
    expect(four?.metrics).toMatchObject({ tp: 70, fp: 2 });
    expect(five?.metrics).toMatchObject({ tp: 67, fp: 2 });
    const added = three!.positive_sessions.filter((id) => !four!.positive_sessions.includes(id)).sort();
    expect(added).toEqual(['0f3b8d62-91a4-4c7e-b5d0-6e2a4c8f1b93', 'clean-cycle-warmup']);
    // cycle_enforce steers, never stops: the corpus keeps zero false positives at stop at every length.
    const stop = await run(['tool_batch.cycle_enforce_periods=2:6:1'], { labels: LABELS });
    for (const p of stop.points) expect(p.metrics).toMatchObject({ tp: 57, fp: 0 });
  });

  it('an output similarity: lowering output.near_repetition_ambiguous to 0.7 steers the paraphrased plan, and one hard negative', async () => {
    const r = await run(['output.near_repetition_ambiguous=0.7,0.85'], { labels: LABELS, positive: 'steer' });
    const [low, base] = r.points;
    expect(low?.positive_sessions).toContain('loop-restate-plan');
    expect(base?.positive_sessions).not.toContain('loop-restate-plan');
    expect(low?.metrics?.tp).toBe((base?.metrics?.tp ?? 0) + 1);
    // The price: short recurring openers around different commands (issue 21) read as similar
    // windows at 0.7 and are steered; at the default they are not.
    const gained = (low?.positive_sessions ?? []).filter((id) => !(base?.positive_sessions ?? []).includes(id)).sort();
    expect(gained).toEqual(['4e1b7c2a-8d3f-4a6e-9b15-c0d2e7f81a43', 'loop-restate-plan']);
    expect(low?.metrics?.fp).toBe((base?.metrics?.fp ?? 0) + 1);
  });
});
