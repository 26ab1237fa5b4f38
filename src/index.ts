// The importable library: everything the CLI does is available here, without the CLI.

export { audit, auditFile, defaultLanes, resolveInputs } from './run/audit.js';
export type { Machine } from './run/lanes.js';
export type { AuditOptions, FileLedger } from './run/options.js';
export { askJudge, type AskOutcome } from './judge/client.js';
export { parseVerdictReply, type ParsedVerdict } from './judge/parse.js';
export { readJudgeConnection, type JudgeConnection } from './judge/settings.js';
export { evidenceKey, judgeMessages } from './ladder/judge-prompt.js';
export { sameProviderModel } from './ladder/model-identity.js';
export { VerdictBook, type JudgePlan, type KnownVerdict, type PendingArbitration } from './ladder/verdicts.js';
export { loadConfig } from './config/load.js';
export { CONFIG_KEYS, defaultConfigValues, parseConfig, type Config } from './config/registry.js';
export type { ConfigKeySpec, ConfigSource, ConfigValue, ConfigValues } from './config/spec.js';
export type { DetectorName, Evidence, Finding, FindingKind, Measurement, RoundDetector, RoundObservation, Strike } from './detect/types.js';
export { allKinds, DETECTOR_NAMES, kindInfo } from './detect/kinds.js';
export type { KindInfo } from './detect/kind.js';
export { ConfigError, InputError, LoopledgerError, UsageError } from './errors.js';
export { ADAPTERS, adapterFor, detectFormat } from './formats/index.js';
export { ingestFile } from './formats/ingest.js';
export type { AdapterContext, FormatAdapter, Probe, RecordParser } from './formats/types.js';
export { LedgerBuilder } from './ledger/build.js';
export type * from './ledger/types.js';
export { SessionBuilder, TranscriptBuilder } from './model/builder.js';
export type * from './model/transcript.js';
export { FORMAT_NAMES } from './model/transcript.js';
export { reachedFailOn, renderReport, type ReportOptions } from './report/index.js';
export { VERSION } from './version.js';
export { ENFORCE_LEVELS, LEVEL_RANK, MODES, REPORT_FORMATS, type Mode, type ReportFormat } from './vocabulary.js';
