// The kinds the tool-batch detectors emit (index.ts, cycle.ts, recurring.ts, no-progress.ts, failure-shapes.ts).

import type { KindInfo } from '../kind.js';

export const TOOL_BATCH_KINDS = {
  repeated_batch: {
    sarif: 'The same tool-call batch with the same answers repeated past the strike threshold.',
    judge: null,
    doc: 'The same tool-call batch, with the same answers, repeated: strikes count the run; past `tool_batch.max_strikes` the batch is refused (seed 000).',
    cap: null,
    capped: false,
  },
  ceiling: {
    sarif: 'Read-only tool calls repeated past the observation ceiling.',
    judge: null,
    doc: 'A read-only batch repeated past `tool_batch.max_observation_steps`, even with changing answers: the ceiling of the observation tier (seed 000).',
    cap: null,
    capped: false,
  },
  tool_cycle: {
    sarif: 'Tool-call batches cycling through the same sequence.',
    judge: null,
    doc: 'Batches cycling through the same sequence (A, B, A, B, …) with the same answers: noted, steered from `tool_batch.cycle_enforce` periods, never stopped.',
    cap: 'steer',
    capped: false,
  },
  recurring_failure: {
    sarif: 'The same tool answered with the same error several times in one session, whatever the arguments (noted only).',
    judge: null,
    doc: 'The same tool answered with the same error `tool_batch.recurring_failure_occurrences` times in a session, across user turns: noted, never a verdict.',
    cap: 'noted',
    capped: false,
  },
  no_progress: {
    sarif: 'A stretch of rounds in which every read returned an answer already seen and every change failed with an error already seen.',
    judge: null,
    doc: 'A stretch of `tool_batch.no_progress_stale_rounds` rounds in which every read answered with something already seen in the last `tool_batch.no_progress_window` rounds and every other call failed with an error already seen (normalised: paths, line numbers, hex ids, timestamps, durations), whatever the arguments. Steers; stops only through the ladder\'s unheeded steers, and never when the stretch is one batch answered alike every round (`same_answers`: seed 000\'s run judges that one).',
    cap: null,
    capped: false,
  },
  repeated_failure: {
    sarif: 'The same tool call failing with the same error again, with other calls (reads) between and no successful change.',
    judge: null,
    doc: 'The same call (signature) failing with the same normalised error `tool_batch.repeated_failure_occurrences` times within `tool_batch.no_progress_window` rounds of a turn, whatever calls come between (a read of the file between byte-identical edits), with no successful change between (SPEC 0.4). Occurrences in consecutive rounds only are seed 000\'s run, which judges them. Steers; stops only through the ladder\'s unheeded steers.',
    cap: null,
    capped: false,
  },
  same_error: {
    sarif: 'Different tool calls answered with the same error round after round: a broken tool or environment.',
    judge: null,
    doc: 'Different calls answered with the same normalised error `tool_batch.same_error_rounds` rounds in a row (a deleted working directory, a shell bridge or sandbox refusing every command alike; SPEC 0.4). A search that found nothing (no output, exit 1) is its answer, not an error. Steers; stops only through the ladder\'s unheeded steers.',
    cap: null,
    capped: false,
  },
} as const satisfies Record<string, KindInfo>;
