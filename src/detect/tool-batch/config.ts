import { defineSection, sectionDefaults, type SectionFields } from '../../config/section.js';
import { ENFORCE_LEVELS, type EnforceLevel } from '../../vocabulary.js';

export interface ToolBatchConfig {
  maxStrikes: number;
  /** null: the read-only tier is off. */
  maxObservationSteps: number | null;
  observationTools: readonly string[];
  costlyTools: readonly string[];
  /** A batch made only of these tools is transparent, like prose (SPEC 0.2). */
  transparentTools: readonly string[];
  /** Occurrences of one (tool, error) in a session at which `recurring_failure` is noted; null: off. */
  recurringFailureOccurrences: number | null;
  cycleWindow: number;
  cycleRepeats: number;
  /** What enforce does with a `tool_cycle` finding; the ladder reads it. */
  cycleEnforce: EnforceLevel;
  /** Full periods before `cycleEnforce` applies; shorter cycles are noted (the ladder reads the key). */
  cycleEnforcePeriods: number;
  /** What enforce does with a refused batch: seed 000 stops; `steer` leaves it to the ladder's unheeded steers. */
  onRefusal: 'stop' | 'steer';
  /** Rounds an answer or error stays "already seen" for `no_progress`; null: off. */
  noProgressWindow: number | null;
  /** Consecutive stale rounds at which `no_progress` is reported. */
  noProgressStaleRounds: number;
  /** Tools (and shell rules) whose successful calls are reads for `no_progress`, beside observation_tools. */
  noProgressReadTools: readonly string[];
  /** Occurrences of one call's failure within the window at which `repeated_failure` steers. */
  repeatedFailureOccurrences: number;
  /** Rounds in a row of different calls answered with one error at which `same_error` steers. */
  sameErrorRounds: number;
}

/** The shell tools of the agents we read, and the prefixes that only read (docs/read-only.md). */
const SHELL_TOOLS = ['Bash', 'shell', 'exec_command', 'run_shell_command', 'execute_bash', 'bash'];
const READ_PREFIXES = ['cat', 'head', 'tail', 'grep', 'rg', 'ls', 'wc', 'nl', 'find', 'sed', 'git status', 'git log', 'git diff', 'git show'];

/**
 * The coding agents' reading tools: Claude Code's Read, Grep, Glob, LS, BashOutput; Gemini CLI's
 * read_file, read_many_files, list_directory, glob, search_file_content; OpenHands' editor view;
 * the read-only shell prefixes. Only `no_progress` reads this list: seed 000's tier is untouched.
 */
const NO_PROGRESS_READ_TOOLS = [
  'Read', 'Grep', 'Glob', 'LS', 'BashOutput',
  'read_file', 'read_many_files', 'list_directory', 'glob', 'search_file_content',
  'str_replace_editor(view:*)',
  ...SHELL_TOOLS.flatMap((t) => READ_PREFIXES.map((p) => `${t}(${p}:*)`)),
];

/**
 * Window of `no_progress`: the shapes alternate a read with edits failing one of two
 * errors, so a repeat comes back within 2-4 rounds; 12 holds three such periods with room, while
 * an answer seen a dozen rounds ago, in between real work, is not what "already seen" means.
 */
const NO_PROGRESS_WINDOW = 12;

/**
 * Stale rounds before `no_progress` steers. On the calibration corpus the longest stale stretch of
 * a clean session is 2 (a browser wait); labelled loops reach 3 to 19. Four leaves two rounds of
 * margin over the clean maximum and still catches the same file read six times with the same
 * answer (five stale rounds: issue 28's constraint); three would stop two more labelled loops
 * (29 against 27) with one round of margin. The ladder stops only after its unheeded steers.
 */
const NO_PROGRESS_STALE_ROUNDS = 4;

/**
 * The shell tools whose failures are seen both in the transcript and in the live guard's payload
 * (Claude Code's `is_error`, Gemini CLI's `Exit Code: N`, OpenHands' and mini-swe-agent's exit
 * codes), so a failed shell read keeps max_strikes on both paths. Not Codex's `exec_command` and
 * `shell`: its hook payload carries no exit status, so live, a failing `cat` would look like a read
 * that answered and be allowed seed 000's 15 (docs/read-only.md).
 */
const FAILURE_REPORTING_SHELLS = SHELL_TOOLS.filter((t) => t !== 'exec_command' && t !== 'shell');

/**
 * Seed 000's browser tools, Claude Code's BashOutput, and the read-only shell prefixes of the
 * shells above: polls seed 000 exempts while their answer moves (issue 28: a growing test run, or
 * 49 polls of `cat job.output | grep … | tail -1`, must never be stopped). Measured on the
 * calibration corpus (docs/read-only.md): these lose no labelled loop; the reading tools (Read,
 * Grep, …) would lose five, a repeated success being in seed 000's allowance of 15.
 */
const OBSERVATION_TOOLS = [
  'snapshot', 'screenshot', 'read_page', 'navigate', 'click', 'BashOutput',
  ...FAILURE_REPORTING_SHELLS.flatMap((t) => READ_PREFIXES.map((p) => `${t}(${p}:*)`)),
];

/** What enforce does with a cycle of repeating answers once it is long enough: see `tool_batch.cycle_enforce`. */
const CYCLE_ENFORCE_DEFAULT: EnforceLevel = 'steer';

/** Shortest and longest cycle period looked for (the seed's "any period of two or more", bounded). */
export const MIN_CYCLE_PERIOD = 2;
/**
 * Agents that oscillate do so between a few batches (edit → test, navigate → snapshot → click);
 * eight covers those with room to spare, and each extra period costs one comparison per round.
 */
export const MAX_CYCLE_PERIOD = 8;

/**
 * Full periods before `cycle_enforce` applies (below it a cycle is only noted). Chosen by the sweep
 * over the calibration corpus (docs/calibrating.md): at three periods a warm-up poll and a short
 * loop look alike (two clean sessions steered for one loop caught), and peers disagree (OpenHands
 * stops a period-2 ping-pong at three, Gemini CLI never looks at cycles); from four on, the only
 * clean cycle of repeating answers is a quiet poll, which is steered, never stopped.
 */
const CYCLE_ENFORCE_PERIODS = 4;

/**
 * Issue 54: "a steer at the third identical failure or the third same-error attempt". Swept on the
 * recordings and research samples (80 sessions, 2,386 rounds): repeated_failure steers the same 7
 * sessions from 2 to 4 occurrences, and 5 loses an OpenHands edit re-sent without its old_str
 * between views (4 times); same_error steers 11 sessions at 2 rounds, 7 at 3 (the new ones: a make
 * failing in a missing build directory three ways, a python -c script failing with one traceback
 * head as it changes), 3 at 4, losing the broken build. Three is where both shapes are caught and
 * two would steer on a single retry.
 */
const REPEATED_FAILURE_OCCURRENCES = 3;
const SAME_ERROR_ROUNDS = 3;

/** SPEC 0.2: "the same tool answered with the same error three or more times in one session". */
const RECURRING_FAILURE_OCCURRENCES = 3;

/**
 * `tool_batch.*` keys. Seed 000's numbers are exact, so none of them declares a `tier`: a policy
 * tier must not move them.
 */
const TOOL_BATCH_FIELDS: SectionFields<ToolBatchConfig> = {
  maxStrikes: {
    key: 'tool_batch.max_strikes',
    type: 'integer',
    default: 2,
    min: 0,
    reason: 'seed 000: two identical batches are allowed and the third is refused',
  },
  maxObservationSteps: {
    key: 'tool_batch.max_observation_steps',
    type: 'integer',
    default: 15,
    nullable: true,
    min: 0,
    reason: 'seed 000: the read-only allowance, reused as the ceiling on changing answers (none turns the tier off)',
  },
  observationTools: {
    key: 'tool_batch.observation_tools',
    type: 'list',
    default: OBSERVATION_TOOLS,
    reason: 'seed 000: browser observation tools, Claude Code\'s BashOutput and the read-only shell prefixes (cat head tail grep rg ls wc nl find sed, git status/log/diff/show) of the shells that report a failure live (Bash, run_shell_command, execute_bash, bash; not Codex\'s exec_command or shell, whose hook payload has no exit status), so a poll whose answer grows is never stopped and a shell read whose last answer failed keeps max_strikes. A batch whose every call matches is read-only (a name equal to a pattern or ending with it after _ - . : /, any case; * a wildcard; Tool(prefix:*) a shell rule, docs/read-only.md)',
  },
  costlyTools: {
    key: 'tool_batch.costly_tools',
    type: 'list',
    default: [],
    reason: 'seed 000 is_costly_batch: read-only tools that are not free to repeat keep the ceiling; none known by default',
  },
  transparentTools: {
    key: 'tool_batch.transparent_tools',
    type: 'list',
    default: ['think'],
    reason: 'SPEC 0.2: a tool whose call is the model thinking aloud; a batch of only these is transparent like prose (seed 000), neither breaking nor extending a run',
  },
  recurringFailureOccurrences: {
    key: 'tool_batch.recurring_failure_occurrences',
    type: 'integer',
    default: RECURRING_FAILURE_OCCURRENCES,
    nullable: true,
    min: 2,
    max: 1000,
    reason: 'SPEC 0.2: the same tool answered with the same error three or more times in one session is noted (never steered or stopped); none turns it off',
  },
  cycleWindow: {
    key: 'tool_batch.cycle_window',
    type: 'integer',
    default: MAX_CYCLE_PERIOD * 3,
    min: MIN_CYCLE_PERIOD * 2,
    max: 4096,
    reason: 'recent batches a cycle must fit in: 24 = the longest period (8) times the repeat count (3), the smallest window that sees every period',
  },
  cycleRepeats: {
    key: 'tool_batch.cycle_repeats',
    type: 'integer',
    default: 3,
    min: 2,
    max: 1000,
    reason: 'full periods with identical answers before a cycle is reported: mirrors max_strikes 2 (twice is allowed, the third is the loop); no measurement behind another number',
  },
  cycleEnforce: {
    key: 'tool_batch.cycle_enforce',
    type: 'enum',
    values: ENFORCE_LEVELS,
    default: CYCLE_ENFORCE_DEFAULT,
    fallback: 'noted',
    reason: 'swept on the calibration corpus: steering cycles of repeating answers from cycle_enforce_periods on catches 5 more loops and steers one quiet poll; stop would stop that poll',
  },
  cycleEnforcePeriods: {
    key: 'tool_batch.cycle_enforce_periods',
    type: 'integer',
    default: CYCLE_ENFORCE_PERIODS,
    min: 2,
    max: 1000,
    reason: 'full periods before cycle_enforce applies (shorter cycles are noted): swept on the calibration corpus, where three periods steer two warm-up polls for one short loop',
  },
  onRefusal: {
    key: 'tool_batch.on_refusal',
    type: 'enum',
    values: ['stop', 'steer'],
    default: 'stop',
    reason: 'seed 000 refuses the batch past max_strikes and the turn ends; steer (SPEC 0.3) steers it instead and the ladder stops after ladder.max_unheeded_steers unheeded steers, for a person who would rather a premature catch cost one reminder than the turn',
  },
  noProgressWindow: {
    key: 'tool_batch.no_progress_window',
    type: 'integer',
    default: NO_PROGRESS_WINDOW,
    nullable: true,
    min: 2,
    max: 4096,
    reason: 'rounds an answer or an error stays already seen: 12 holds three periods of the read/edit/edit cycles of issue 28; none turns no_progress off',
  },
  noProgressStaleRounds: {
    key: 'tool_batch.no_progress_stale_rounds',
    type: 'integer',
    default: NO_PROGRESS_STALE_ROUNDS,
    min: 2,
    max: 1000,
    reason: 'consecutive stale rounds before no_progress steers: the longest clean stretch of the calibration corpus is 2, labelled loops reach 3-19; 4 keeps two rounds of margin and still catches the same file read six times (issue 28)',
  },
  noProgressReadTools: {
    key: 'tool_batch.no_progress_read_tools',
    type: 'list',
    default: NO_PROGRESS_READ_TOOLS,
    reason: 'the coding agents\' reading tools and read-only shell prefixes (docs/read-only.md): a success of one of these is a read for no_progress, not a change; observation_tools count too',
  },
  repeatedFailureOccurrences: {
    key: 'tool_batch.repeated_failure_occurrences',
    type: 'integer',
    default: REPEATED_FAILURE_OCCURRENCES,
    min: 2,
    max: 1000,
    reason: 'SPEC 0.4 and issue 54: a steer at the third identical failure of one call, reads between, within no_progress_window rounds with no successful change; swept on the recordings: 2-4 steer the same sessions, 5 loses a real one',
  },
  sameErrorRounds: {
    key: 'tool_batch.same_error_rounds',
    type: 'integer',
    default: SAME_ERROR_ROUNDS,
    min: 2,
    max: 1000,
    reason: 'SPEC 0.4 and issue 54: a steer at the third different call answered with the same error in a row (a broken tool or environment); swept on the recordings: 2 steers 4 more sessions on single retries, 4 loses a broken build',
  },
};

/** The `tool_batch` section. */
export const TOOL_BATCH_SECTION = defineSection<ToolBatchConfig>(TOOL_BATCH_FIELDS);

/** `tool_batch.*` keys. */
export const TOOL_BATCH_KEYS = TOOL_BATCH_SECTION.keys;

/** Detector defaults, for tests and callers without a configuration. */
export function defaultToolBatchConfig(): Readonly<ToolBatchConfig> {
  return sectionDefaults(TOOL_BATCH_SECTION);
}
