// The ladder's configuration: `mode`, `ladder.*`, `judge.*`, `policy.*`, declared here with the
// reason for every default, and read back into typed settings with tolerant fallbacks (a key the
// loader did not fill, or a value of the wrong shape, degrades to its default, never throws).

import type { ConfigKeySpec, ConfigValue, ConfigValues } from '../config/spec.js';
import { CYCLE_ENFORCE_DEFAULT, CYCLE_ENFORCE_PERIODS } from '../detect/tool-batch/config.js';
import { ENFORCE_LEVELS, type EnforceLevel, isMode, type Mode, MODES } from '../vocabulary.js';

export const CAPABILITIES = ['strong', 'standard', 'weak'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** `auto` picks `subagent` for sub-agent threads and `agent` otherwise (see policy.ts). */
export const PROFILES = ['agent', 'subagent', 'conversation'] as const;
export type Profile = (typeof PROFILES)[number];

/** Seed 002: "Capped kinds (predictable drift, reasoning runaway) never hard-stop on heuristics alone." */
const DEFAULT_CAPPED_KINDS: readonly string[] = ['predictable_drift', 'reasoning_runaway'];

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

/** `mode`, `ladder.*`, `judge.*` and `policy.*` keys. */
export const LADDER_KEYS: readonly ConfigKeySpec[] = [
  // The ledger is a replay, so computing every mode costs one extra column, and showing them side
  // by side is the product. `mode` therefore does not switch anything off: it names the mode the
  // user runs under, which reports emphasize (and `--fail-on` reads the enforce column regardless).
  {
    key: 'mode',
    type: 'enum',
    values: MODES,
    default: 'telemetry',
    fallback: 'telemetry',
    reason:
      'seed 002: Telemetry is the report-only calibration default; the ledger always computes all three columns and mode only names the one reports emphasize',
  },
  {
    key: 'ladder.max_unheeded_steers',
    type: 'integer',
    default: 3,
    min: 1,
    max: 100,
    reason: 'seed 002: "hard-stops only after 3 unheeded steers"',
  },
  {
    key: 'ladder.progress_notes_only',
    type: 'boolean',
    default: true,
    reason:
      'seed 000: "the same call with a different answer is progress that happens to look alike"; text repeated while a repeated tool batch gets new answers (polling) is noted, not steered',
  },
  {
    key: 'ladder.varied_work_steers_only',
    type: 'boolean',
    default: true,
    reason:
      'a text signal in a round whose tool batch or answer is new in the turn may steer but not stop on heuristics alone (a confident judge still may), unless the text is a verbatim loop dominating its round (a chant, a re-emitted paragraph, an identical thinking block): varied, answered work is progress, as ladder.progress_notes_only says for polling',
  },
  {
    key: 'ladder.steer_confidence_min',
    type: 'ratio',
    default: 0.5,
    reason:
      'below even odds the detector itself doubts the loop: such findings are only noted (predictable_drift is deliberately reported lower)',
  },
  {
    key: 'ladder.stop_confidence_min',
    type: 'ratio',
    default: 0.88,
    reason: 'seed 002: the strong band (0.88 confidence) is "hard-stop eligible without a judge"; anything weaker may only steer',
  },
  {
    key: 'ladder.capped_kinds',
    type: 'list',
    default: DEFAULT_CAPPED_KINDS,
    reason: 'seed 002: capped kinds "may nudge but never abort on heuristics alone"',
  },
  {
    key: 'ladder.clear_detection',
    type: 'list',
    default: [],
    reason:
      'the per-session escape hatch: <session id>@<turn> or <session id>@<turn>.<round> clears detection from there on, state dropped at once (seed 002 mid-turn clear)',
  },
  {
    key: 'judge.enabled',
    type: 'boolean',
    default: true,
    reason: 'seed 002: ambiguous evidence asks the judge; "a disabled judge never consults the model"',
  },
  {
    key: 'judge.max_verdicts_per_turn',
    type: 'integer',
    default: 2,
    min: 0,
    max: 1000,
    reason: 'seed 002: at most 2 verdicts per turn bound what arbitration may cost',
  },
  {
    key: 'judge.verdict_confidence_min',
    type: 'ratio',
    default: 0.9,
    reason: 'seed 002: judge_verdict_confidence_min 0.9; an answer without usable confidence never escalates',
  },
  {
    key: 'judge.endpoint',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'none: no judge is asked; an OpenAI-compatible base URL (…/v1) or a full …/chat/completions URL',
  },
  {
    key: 'judge.model',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'the judge model the endpoint serves; seed 002 wants a fast model, and never the monitored session\'s own',
  },
  {
    key: 'judge.api_key_env',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'the NAME of the environment variable holding the key (the key is never a config value nor printed); none: no key sent',
  },
  {
    key: 'judge.timeout_s',
    type: 'number',
    default: 30,
    min: 0.1,
    max: 600,
    reason: 'seed 002: one attempt per arbitration, capped by a 30 s timeout',
  },
  {
    key: 'judge.cache',
    type: 'string',
    default: null,
    nullable: true,
    reason: 'none: verdicts last one run; a file path keeps them by evidence, so a re-run asks nothing twice (commit it for reproducible CI ledgers)',
  },
  {
    key: 'judge.concurrency',
    type: 'integer',
    default: 4,
    min: 1,
    max: 64,
    reason: 'arbitrations in flight at once across sessions: a store audit finishes in reasonable time without tripping rate limits',
  },
  {
    key: 'judge.carry_verdicts',
    type: 'boolean',
    default: true,
    reason:
      'a confident verdict covers the rest of its turn for the same signal (weaker evidence after progress, stronger after loop), so the per-turn budget goes to new signals',
  },
  {
    key: 'policy.profile',
    type: 'enum',
    values: ['auto', ...PROFILES],
    default: 'auto',
    fallback: 'auto',
    reason: 'auto: sub-agent threads get the subagent tier, everything else the agent tier the seed calibrated against',
  },
  {
    key: 'policy.model_capability',
    type: 'enum',
    values: ['auto', ...CAPABILITIES],
    default: 'auto',
    fallback: 'auto',
    reason: 'auto maps the turn model through policy.capability_patterns; weak models get higher thresholds (seed 002)',
  },
  {
    key: 'policy.capability_patterns',
    type: 'list',
    default: DEFAULT_CAPABILITY_PATTERNS,
    reason: 'glob=capability, first match wins, unmatched is standard: a coarse map meant to be overridden',
  },
  {
    key: 'policy.scale',
    type: 'number',
    default: null,
    nullable: true,
    min: 0.25,
    max: 4,
    reason: 'none: profile × capability scale from the tier table; a number replaces it for calibration sweeps',
  },
];

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
  /** Output/thinking findings in a round whose repeated tool batch got new answers: noted only. */
  progressNotesOnly: boolean;
  /** Output/thinking findings in a round whose tool work is new: steer at most unless dominant. */
  variedWorkSteersOnly: boolean;
  judge: JudgeSettings;
}

const SPEC_BY_KEY = new Map(LADDER_KEYS.map((s) => [s.key, s]));

function defaultOf(key: string): ConfigValue {
  const spec = SPEC_BY_KEY.get(key);
  if (!spec) throw new Error(`not a ladder key: ${key}`);
  return spec.default;
}

function num(values: ConfigValues, key: string, warn: (m: string) => void, integer = false): number {
  const v = values[key];
  const spec = SPEC_BY_KEY.get(key)!;
  if (v === undefined) return spec.default as number;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
    warn(`${key}: ${JSON.stringify(v)} is not a ${integer ? 'whole number' : 'number'}; using ${String(spec.default)}`);
    return spec.default as number;
  }
  const min = spec.type === 'ratio' ? 0 : (spec.min ?? -Infinity);
  const max = spec.type === 'ratio' ? 1 : (spec.max ?? Infinity);
  return Math.min(max, Math.max(min, v));
}

function list(values: ConfigValues, key: string, warn: (m: string) => void): readonly string[] {
  const v = values[key] ?? defaultOf(key);
  if (Array.isArray(v)) return v as readonly string[];
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  warn(`${key}: ${JSON.stringify(v)} is not a list; using the default`);
  return defaultOf(key) as readonly string[];
}

/**
 * `mode` from any value: an unknown string (a newer build's mode, a typo) degrades to telemetry
 * with a warning, as seed 002 asks ("an unknown mode string from a newer build degrades to
 * Telemetry instead of failing"). Case-insensitive, since `Enforce` is how the seed spells it.
 */
export function parseMode(value: unknown, warn: (m: string) => void = () => {}): Mode {
  if (value === undefined || value === null) return 'telemetry';
  const s = String(value).trim().toLowerCase();
  if (isMode(s)) return s;
  warn(`mode: unknown value ${JSON.stringify(value)}; using telemetry`);
  return 'telemetry';
}

export function parseCycleLevel(value: unknown, warn: (m: string) => void = () => {}): EnforceLevel {
  // Absent when the caller passes no tool-batch keys: the tool-batch detector's own default.
  if (value === undefined || value === null) return CYCLE_ENFORCE_DEFAULT;
  const s = String(value).trim().toLowerCase();
  if ((ENFORCE_LEVELS as readonly string[]).includes(s)) return s as EnforceLevel;
  warn(`tool_batch.cycle_enforce: unknown value ${JSON.stringify(value)}; using noted`);
  return 'noted';
}

/** A whole number of periods, at least the shortest cycle's two; the tool-batch default otherwise. */
export function parseCycleEnforcePeriods(value: unknown, warn: (m: string) => void = () => {}): number {
  if (value === undefined || value === null) return CYCLE_ENFORCE_PERIODS;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 2) return value;
  warn(`tool_batch.cycle_enforce_periods: ${JSON.stringify(value)} is not a whole number of at least 2; using ${CYCLE_ENFORCE_PERIODS}`);
  return CYCLE_ENFORCE_PERIODS;
}

export function readLadderSettings(values: ConfigValues, warn: (m: string) => void = () => {}): LadderSettings {
  const enabled = values['judge.enabled'];
  return {
    maxUnheededSteers: num(values, 'ladder.max_unheeded_steers', warn, true),
    steerConfidenceMin: num(values, 'ladder.steer_confidence_min', warn),
    stopConfidenceMin: num(values, 'ladder.stop_confidence_min', warn),
    cappedKinds: new Set(list(values, 'ladder.capped_kinds', warn)),
    cycleEnforce: parseCycleLevel(values['tool_batch.cycle_enforce'], warn),
    cycleEnforcePeriods: parseCycleEnforcePeriods(values['tool_batch.cycle_enforce_periods'], warn),
    progressNotesOnly: values['ladder.progress_notes_only'] !== false,
    variedWorkSteersOnly: values['ladder.varied_work_steers_only'] !== false,
    judge: {
      enabled: typeof enabled === 'boolean' ? enabled : true,
      maxVerdictsPerTurn: num(values, 'judge.max_verdicts_per_turn', warn, true),
      verdictConfidenceMin: num(values, 'judge.verdict_confidence_min', warn),
      carryVerdicts: values['judge.carry_verdicts'] !== false,
    },
  };
}

export function readList(values: ConfigValues, key: string, warn: (m: string) => void = () => {}): readonly string[] {
  return list(values, key, warn);
}

export function defaultLadderSettings(): LadderSettings {
  return readLadderSettings({});
}
