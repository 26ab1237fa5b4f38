// The kinds the tool-batch detectors emit (index.ts, cycle.ts, recurring.ts, no-progress.ts).

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
} as const satisfies Record<string, KindInfo>;
