// The ladder's configuration: `mode`, `ladder.*`, `judge.*`, `policy.*`, declared here with the
// reason for every default as one section (parsed once, with the loader's rules), and the
// ladder's settings shaped from it.

import { allKinds } from '../detect/kinds.js';
import { defineSection, sectionDefaults, type SectionFields } from '../config/section.js';
import { defaultToolBatchConfig, type ToolBatchConfig } from '../detect/tool-batch/config.js';
import { type EnforceLevel, type Mode, MODES } from '../vocabulary.js';

export const CAPABILITIES = ['strong', 'standard', 'weak'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** `auto` picks `subagent` for sub-agent threads and `agent` otherwise (see policy.ts). */
export const PROFILES = ['agent', 'subagent', 'conversation'] as const;
export type Profile = (typeof PROFILES)[number];

/**
 * Seed 002: "Capped kinds (predictable drift, reasoning runaway) never hard-stop on heuristics alone."
 * The kinds that declare themselves capped (detect/kinds.ts).
 */
const DEFAULT_CAPPED_KINDS: readonly string[] = [...new Set(allKinds().filter((k) => k.info.capped).map((k) => k.kind))];

/**
 * `auto` capability: first matching `glob=capability` wins, matched case-insensitively against
 * the whole model name. A coarse starting map (small/fast variants weak, flagship families
 * strong); anything unmatched is `standard`. Weak entries come first so `gpt-5-mini` is weak.
 */
const DEFAULT_CAPABILITY_PATTERNS: readonly string[] = [
  '*haiku*=weak',
  '*-mini*=weak',
  '*nano*=weak',
  '*flash-lite*=weak',
  '*opus*=strong',
  '*sonnet*=strong',
  '*gpt-5*=strong',
  '*-pro*=strong',
];

/** The section's settings, one per key. */
export interface LadderConfig {
  mode: Mode;
  maxUnheededSteers: number;
  progressNotesOnly: boolean;
  variedWorkSteersOnly: boolean;
  steerConfidenceMin: number;
  stopConfidenceMin: number;
  cappedKinds: readonly string[];
  clearDetection: readonly string[];
  judgeEnabled: boolean;
  maxVerdictsPerTurn: number;
  verdictConfidenceMin: number;
  judgeEndpoint: string | null;
  judgeModel: string | null;
  judgeApiKeyEnv: string | null;
  judgeTimeoutS: number;
  judgeCache: string | null;
  judgeConcurrency: number;
  carryVerdicts: boolean;
  profile: 'auto' | Profile;
  modelCapability: 'auto' | Capability;
  capabilityPatterns: readonly string[];
  /** null: the tier table's scale. */
  scale: number | null;
}

/** `mode`, `ladder.*`, `judge.*` and `policy.*` keys. */
const LADDER_FIELDS: SectionFields<LadderConfig> = {
  // The ledger is a replay, so computing every mode costs one extra column, and showing them side
  // by side is the product. `mode` therefore does not switch anything off: it names the mode the
  // user runs under, which reports emphasize (and `--fail-on` reads the enforce column regardless).
  mode: {
    key: 'mode',
    type: 'enum',
    values: MODES,
    default: 'telemetry',
    fallback: 'telemetry',
    reason:
      'seed 002: Telemetry is the report-only calibration default; the ledger always computes all three columns and mode only names the one reports emphasize',
  },
  maxUnheededSteers: {
    key: 'ladder.max_unheeded_steers',
    type: 'integer',
    default: 3,
    min: 1,
    max: 100,
    reason: 'seed 002: "hard-stops only after 3 unheeded steers"',
  },
  progressNotesOnly: {
    key: 'ladder.progress_notes_only',
    type: 'boolean',
    default: true,
    reason:
      'seed 000: "the same call with a different answer is progress that happens to look alike"; text repeated while a repeated tool batch gets new answers (polling) is noted, not steered',
  },
  variedWorkSteersOnly: {
    key: 'ladder.varied_work_steers_only',
    type: 'boolean',
    default: true,
    reason:
      'a text signal in a round whose tool batch or answer is new in the turn may steer but not stop on heuristics alone (a confident judge still may), unless the text is a verbatim loop dominating its round (a chant, a re-emitted paragraph, an identical thinking block): varied, answered work is progress, as ladder.progress_notes_only says for polling',
  },
  steerConfidenceMin: {
    key: 'ladder.steer_confidence_min',
    type: 'ratio',
    default: 0.5,
    reason:
      'below even odds the detector itself doubts the loop: such findings are only noted (predictable_drift is deliberately reported lower)',
  },
  stopConfidenceMin: {
    key: 'ladder.stop_confidence_min',
    type: 'ratio',
    default: 0.88,
    reason: 'seed 002: the strong band (0.88 confidence) is "hard-stop eligible without a judge"; anything weaker may only steer',
  },
  cappedKinds: {
    key: 'ladder.capped_kinds',
    type: 'list',
    default: DEFAULT_CAPPED_KINDS,
    reason: 'seed 002: capped kinds "may nudge but never abort on heuristics alone"',
  },
  clearDetection: {
    key: 'ladder.clear_detection',
    type: 'list',
    default: [],
    reason:
      'the per-session escape hatch: <session id>@<turn> or <session id>@<turn>.<round> clears detection from there on, state dropped at once (seed 002 mid-turn clear)',
  },
  judgeEnabled: {
    key: 'judge.enabled',
    type: 'boolean',
    default: true,
    reason: 'seed 002: ambiguous evidence asks the judge; "a disabled judge never consults the model"',
  },
  maxVerdictsPerTurn: {
    key: 'judge.max_verdicts_per_turn',
    type: 'integer',
    default: 2,
    min: 0,
    max: 1000,
    reason: 'seed 002: at most 2 verdicts per turn bound what arbitration may cost',
  },
  verdictConfidenceMin: {
    key: 'judge.verdict_confidence_min',
    type: 'ratio',
    default: 0.9,
    reason: 'seed 002: judge_verdict_confidence_min 0.9; an answer without usable confidence never escalates',
  },
  judgeEndpoint: {
    key: 'judge.endpoint',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'none: no judge is asked; an OpenAI-compatible base URL (…/v1) or a full …/chat/completions URL',
  },
  judgeModel: {
    key: 'judge.model',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'the judge model the endpoint serves; seed 002 wants a fast model, and never the monitored session\'s own',
  },
  judgeApiKeyEnv: {
    key: 'judge.api_key_env',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'the NAME of the environment variable holding the key (the key is never a config value nor printed); none: no key sent',
  },
  judgeTimeoutS: {
    key: 'judge.timeout_s',
    type: 'number',
    default: 30,
    min: 0.1,
    max: 600,
    reason: 'seed 002: one attempt per arbitration, capped by a 30 s timeout',
  },
  judgeCache: {
    key: 'judge.cache',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'none: verdicts last one run; a file path keeps them by evidence, so a re-run asks nothing twice (commit it for reproducible CI ledgers)',
  },
  judgeConcurrency: {
    key: 'judge.concurrency',
    type: 'integer',
    default: 4,
    min: 1,
    max: 64,
    reason: 'arbitrations in flight at once across sessions: a store audit finishes in reasonable time without tripping rate limits',
  },
  carryVerdicts: {
    key: 'judge.carry_verdicts',
    type: 'boolean',
    default: true,
    reason:
      'a confident verdict covers the rest of its turn for the same signal (weaker evidence after progress, stronger after loop), so the per-turn budget goes to new signals',
  },
  profile: {
    key: 'policy.profile',
    type: 'enum',
    values: ['auto', ...PROFILES],
    default: 'auto',
    fallback: 'auto',
    reason: 'auto: sub-agent threads get the subagent tier, everything else the agent tier the seed calibrated against',
  },
  modelCapability: {
    key: 'policy.model_capability',
    type: 'enum',
    values: ['auto', ...CAPABILITIES],
    default: 'auto',
    fallback: 'auto',
    reason: 'auto maps the turn model through policy.capability_patterns; weak models get higher thresholds (seed 002)',
  },
  capabilityPatterns: {
    key: 'policy.capability_patterns',
    type: 'list',
    default: DEFAULT_CAPABILITY_PATTERNS,
    reason: 'glob=capability, first match wins, unmatched is standard: a coarse map meant to be overridden',
  },
  scale: {
    key: 'policy.scale',
    type: 'number',
    default: null,
    nullable: true,
    min: 0.25,
    max: 4,
    reason: 'none: profile × capability scale from the tier table; a number replaces it for calibration sweeps',
  },
};

/** The `mode`, `ladder`, `judge` and `policy` section. */
export const LADDER_SECTION = defineSection<LadderConfig>(LADDER_FIELDS);

/** `mode`, `ladder.*`, `judge.*` and `policy.*` keys. */
export const LADDER_KEYS = LADDER_SECTION.keys;

// ---------------------------------------------------------------------------------------------

interface JudgeSettings {
  enabled: boolean;
  maxVerdictsPerTurn: number;
  verdictConfidenceMin: number;
  /** A confident verdict covers later evidence of the same signal in its turn (see `judge.carry_verdicts`). */
  carryVerdicts: boolean;
}

export interface LadderSettings {
  maxUnheededSteers: number;
  steerConfidenceMin: number;
  stopConfidenceMin: number;
  cappedKinds: ReadonlySet<string>;
  /** What enforce does with a `tool_cycle` finding (`tool_batch.cycle_enforce`). */
  cycleEnforce: EnforceLevel;
  /** Full periods a cycle needs before `cycleEnforce` applies beyond `noted` (`tool_batch.cycle_enforce_periods`). */
  cycleEnforcePeriods: number;
  /** What a refused tool batch gets (`tool_batch.on_refusal`): seed 000's stop, or a steer first. */
  onRefusal: 'stop' | 'steer';
  /** Output/thinking findings in a round whose repeated tool batch got new answers: noted only. */
  progressNotesOnly: boolean;
  /** Output/thinking findings in a round whose tool work is new: steer at most unless dominant. */
  variedWorkSteersOnly: boolean;
  judge: JudgeSettings;
}

/** The ladder's settings from the parsed sections (the cycle keys are the tool-batch section's). */
export function ladderSettings(ladder: LadderConfig, toolBatch: ToolBatchConfig): LadderSettings {
  return {
    maxUnheededSteers: ladder.maxUnheededSteers,
    steerConfidenceMin: ladder.steerConfidenceMin,
    stopConfidenceMin: ladder.stopConfidenceMin,
    cappedKinds: new Set(ladder.cappedKinds),
    cycleEnforce: toolBatch.cycleEnforce,
    cycleEnforcePeriods: toolBatch.cycleEnforcePeriods,
    onRefusal: toolBatch.onRefusal,
    progressNotesOnly: ladder.progressNotesOnly,
    variedWorkSteersOnly: ladder.variedWorkSteersOnly,
    judge: {
      enabled: ladder.judgeEnabled,
      maxVerdictsPerTurn: ladder.maxVerdictsPerTurn,
      verdictConfidenceMin: ladder.verdictConfidenceMin,
      carryVerdicts: ladder.carryVerdicts,
    },
  };
}

export function defaultLadderSettings(): LadderSettings {
  return ladderSettings(sectionDefaults(LADDER_SECTION), defaultToolBatchConfig());
}
