// `loopledger merge`: shard ledgers in, the ledger one run over everything would have printed out.
// Every file's ledger depends on that file alone, so adding shards up is exact: inputs, sessions
// and files that are no transcripts go back in the order one run gives them (sorted by path, the
// sessions of a file in their own order), the summary is recomputed from them as one run computes
// it (the same sums in the same order, so the same dollars to the last bit), and the judge's
// counters are added. What cannot be added up is refused, naming the difference.

import { UsageError } from '../errors.js';
import { roundUsd } from '../money/account.js';
import { compareCodePoints } from '../read/discover.js';
import { configHash } from './config-hash.js';
import { assembleReport, noJudgeUsage } from './summary.js';
import type { InputSummary } from '../formats/input.js';
import type { JudgeUsage, LedgerReport, NotTranscriptFile, SessionLedger } from './types.js';

const LEDGER_SCHEMA = 'loopledger/1';

/** A parsed ledger and the name errors call it by (its file). */
export interface NamedLedger {
  name: string;
  report: LedgerReport;
}

/** Refused: exit 2, the message names the files and what differs. */
export class MergeError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Shape checks deep enough that the merge and every renderer can trust what they read. */
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isAmount = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isFinite(v));

/** A shard's timeline as the page reads it: `[turn, round]` pairs, a count, `[round, tokens, usd]` points. */
function isTimeline(v: unknown): boolean {
  if (!isRecord(v) || !isCount(v['turn_starts_more']) || !Array.isArray(v['turn_starts']) || !Array.isArray(v['spend'])) return false;
  const pairs = v['turn_starts'] as unknown[];
  const points = v['spend'] as unknown[];
  return (
    pairs.every((p) => Array.isArray(p) && p.length === 2 && isCount(p[0]) && isCount(p[1])) &&
    points.every((p) => Array.isArray(p) && p.length === 3 && isCount(p[0]) && isAmount(p[1]) && isAmount(p[2]))
  );
}

export function asLedger(value: unknown, name: string): LedgerReport {
  if (!isRecord(value)) throw new MergeError(`${name}: not a loopledger JSON ledger (a JSON object is expected; make it with --format json)`);
  if (value['schema'] !== LEDGER_SCHEMA) {
    const schema = typeof value['schema'] === 'string' ? value['schema'] : null;
    throw new MergeError(
      schema === null
        ? `${name}: not a loopledger JSON ledger (no "schema"; make it with --format json)`
        : `${name}: schema ${schema} cannot be merged by this loopledger, which writes ${LEDGER_SCHEMA}`,
    );
  }
  for (const key of ['inputs', 'sessions'] as const) {
    if (!Array.isArray(value[key])) throw new MergeError(`${name}: "${key}" is not a list: not a complete loopledger ledger`);
  }
  if (!isRecord(value['config'])) throw new MergeError(`${name}: "config" is missing: not a complete loopledger ledger`);
  if (!isRecord(value['tool']) || typeof value['tool']['version'] !== 'string') throw new MergeError(`${name}: "tool.version" is missing: not a complete loopledger ledger`);
  if (value['not_transcripts'] !== undefined && !Array.isArray(value['not_transcripts'])) throw new MergeError(`${name}: "not_transcripts" is not a list`);
  for (const [i, s] of (value['sessions'] as unknown[]).entries()) {
    if (!isRecord(s) || typeof s['id'] !== 'string' || typeof s['path'] !== 'string' || !Array.isArray(s['entries']) || !isRecord(s['outcome'])) {
      throw new MergeError(`${name}: sessions[${i}] is not a session (id, path, entries, outcome)`);
    }
    if (s['timeline'] !== undefined && !isTimeline(s['timeline'])) {
      throw new MergeError(`${name}: sessions[${i}].timeline is not a timeline (turn_starts, turn_starts_more, spend)`);
    }
  }
  for (const [i, input] of (value['inputs'] as unknown[]).entries()) {
    if (!isRecord(input) || typeof input['path'] !== 'string' || typeof input['skipped_lines'] !== 'number') {
      throw new MergeError(`${name}: inputs[${i}] is not an input (path, skipped_lines)`);
    }
  }
  return value as unknown as LedgerReport;
}

/** `key a vs b` for the first few keys whose values differ. */
export function describeConfigDifference(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): string {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const differ = keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  const shown = differ.slice(0, 5).map((k) => `${k} ${show(a[k])} vs ${show(b[k])}`);
  const more = differ.length > shown.length ? `, and ${differ.length - shown.length} more` : '';
  return shown.length > 0 ? `${shown.join(', ')}${more}` : 'the same values, in another hash';
}

function show(v: unknown): string {
  return v === undefined ? '(absent)' : JSON.stringify(v);
}

/** The hash a ledger's config has; a recorded hash that does not match its config is refused. */
export function checkedConfigHash(config: Readonly<Record<string, unknown>>, recorded: unknown, name: string): string {
  const hash = configHash(config);
  if (recorded !== undefined && recorded !== hash) {
    throw new MergeError(`${name}: config_hash ${String(recorded)} does not match its config (${hash}): edited by hand, or written by another loopledger`);
  }
  return hash;
}

export interface ShardHeader {
  name: string;
  shard?: { index: number; count: number } | undefined;
}

/**
 * Shards must be all or none, of one count, each once and none missing: a merge that lacks a shard
 * is not what one run prints, and one given twice would count its sessions twice.
 */
export function checkShards(headers: readonly ShardHeader[]): void {
  const sharded = headers.filter((h) => h.shard !== undefined);
  if (sharded.length === 0) return;
  if (sharded.length < headers.length) {
    const plain = headers.find((h) => h.shard === undefined)!;
    throw new MergeError(`${plain.name} holds no shard while ${sharded[0]!.name} holds shard ${fmt(sharded[0]!.shard!)}: merge the shards of one run`);
  }
  const count = sharded[0]!.shard!.count;
  const byIndex = new Map<number, string>();
  for (const h of sharded) {
    const s = h.shard!;
    if (!Number.isSafeInteger(s.count) || !Number.isSafeInteger(s.index) || s.index < 1 || s.index > s.count) {
      throw new MergeError(`${h.name}: shard ${String(s.index)}/${String(s.count)} is not a shard`);
    }
    if (s.count !== count) throw new MergeError(`${sharded[0]!.name} holds shard ${fmt(sharded[0]!.shard!)} but ${h.name} shard ${fmt(s)}: shards of different counts`);
    const other = byIndex.get(s.index);
    if (other !== undefined) throw new MergeError(`shard ${fmt(s)} is given twice: ${other} and ${h.name}`);
    byIndex.set(s.index, h.name);
  }
  const missing: number[] = [];
  for (let k = 1; k <= count && missing.length < 10; k++) if (!byIndex.has(k)) missing.push(k);
  if (missing.length > 0) {
    const absent = count - byIndex.size;
    const list = missing.map((k) => `${k}/${count}`).join(', ');
    throw new MergeError(`shard${absent === 1 ? '' : 's'} ${list}${absent > missing.length ? ` and ${absent - missing.length} more` : ''} missing: a merge without ${absent === 1 ? 'it' : 'them'} is not the whole run`);
  }
}

function fmt(s: { index: number; count: number }): string {
  return `${s.index}/${s.count}`;
}

/** The same value in every ledger, or a refusal naming the two that differ. */
function sameEverywhere(ledgers: readonly NamedLedger[], what: string, get: (r: LedgerReport) => unknown): void {
  const first = ledgers[0]!;
  const want = JSON.stringify(get(first.report));
  for (const l of ledgers.slice(1)) {
    const got = JSON.stringify(get(l.report));
    if (got !== want) throw new MergeError(`${first.name} and ${l.name} differ in ${what}: ${want ?? '(absent)'} vs ${got ?? '(absent)'}`);
  }
}

const JUDGE_COUNTERS = ['requests', 'input_tokens', 'output_tokens', 'cached', 'failed'] as const;

/** Counters add up; dollars add up until one shard could not price its judge (null, with its reason). */
function addJudge(total: JudgeUsage, j: JudgeUsage | undefined): void {
  if (!j) return;
  for (const k of JUDGE_COUNTERS) total[k] += typeof j[k] === 'number' ? j[k] : 0;
  if (j.usd === undefined || total.usd === null) return;
  if (j.usd === null) {
    total.usd = null;
    if (j.usd_reason !== undefined) total.usd_reason = j.usd_reason;
    return;
  }
  total.usd = roundUsd((total.usd ?? 0) + j.usd);
}

/** The one ledger the shards add up to (the `shard` field is gone: it is the whole run). */
export function mergeLedgers(ledgers: readonly NamedLedger[]): LedgerReport {
  if (ledgers.length === 0) throw new MergeError('merge: name at least one JSON ledger');
  const first = ledgers[0]!;
  sameEverywhere(ledgers, 'tool version', (r) => r.tool.version);
  const hashes = ledgers.map((l) => checkedConfigHash(l.report.config, l.report.config_hash, l.name));
  for (const [i, l] of ledgers.entries()) {
    if (hashes[i] !== hashes[0]) {
      throw new MergeError(
        `${first.name} and ${l.name} were made under different configurations (config_hash ${hashes[0]} vs ${hashes[i]}): ${describeConfigDifference(first.report.config, l.report.config)}`,
      );
    }
  }
  sameEverywhere(ledgers, 'pricing', (r) => r.pricing);
  checkShards(ledgers.map((l) => ({ name: l.name, shard: l.report.shard })));

  // A file in two ledgers would count twice: refuse, naming it (inputs and not_transcripts alike).
  const owner = new Map<string, string>();
  const claim = (path: string, name: string) => {
    const other = owner.get(path);
    if (other !== undefined) {
      throw new MergeError(
        other === name ? `${name} lists ${path} twice` : `${path} is in both ${other} and ${name}: the same file in two ledgers would be counted twice`,
      );
    }
    owner.set(path, name);
  };
  const inputs: InputSummary[] = [];
  const notTranscripts: NotTranscriptFile[] = [];
  const sessions: SessionLedger[] = [];
  const judge: JudgeUsage = noJudgeUsage();
  for (const { name, report } of ledgers) {
    for (const input of report.inputs) {
      claim(input.path, name);
      inputs.push(input);
    }
    for (const file of report.not_transcripts ?? []) {
      claim(file.path, name);
      notTranscripts.push(file);
    }
    sessions.push(...report.sessions);
    addJudge(judge, report.summary?.judge);
  }
  // One run reads files in code point order of their paths and keeps each file's sessions in its
  // own order: a stable sort by path puts the shards' sessions back in exactly that order.
  const byPath = <T extends { path: string }>(a: T, b: T) => compareCodePoints(a.path, b.path);
  return assembleReport({
    version: first.report.tool.version,
    config: first.report.config as never,
    inputs: inputs.sort(byPath),
    notTranscripts: notTranscripts.sort(byPath),
    sessions: sessions.sort(byPath),
    judge,
    ...(first.report.pricing ? { pricing: first.report.pricing as never } : {}),
  });
}
