// What the shards must agree on before they are added up (schema, version, configuration, prices,
// shard numbers), and the refusal that names the files and the difference when they do not.

import { UsageError } from '../errors.js';
import { configHash } from '../ledger/config-hash.js';
import type { LedgerReport } from '../ledger/types.js';
import { isRecord } from '../is-record.js';
import { checkLedgerFields, checkLedgerRest, type InputsSeen, LedgerFieldError, type NotTranscriptsSeen, type SessionsSeen } from './ledger-check.js';
import type { ShardLedger } from './shard-store.js';

export const LEDGER_SCHEMA = 'loopledger/1';

/** Refused: exit 2, the message names the files and what differs. */
export class MergeError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

/**
 * `value` as a ledger, or a refusal naming the file and the field. `read`: its sessions were
 * checked one by one as they were read (checkSessionField) and its inputs too, gathered there
 * (and its no-transcripts, with `others`), and `value.sessions` and `value.inputs` (and
 * `value.not_transcripts`) hold none of them; the rest is checked here.
 */
export function asLedger(value: unknown, name: string, read?: { sessions: SessionsSeen; inputs: InputsSeen; others?: NotTranscriptsSeen }): LedgerReport {
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
  try {
    if (read !== undefined) checkLedgerRest(value, read.sessions, read.inputs, read.others);
    else checkLedgerFields(value);
  } catch (e) {
    if (e instanceof LedgerFieldError) throw new MergeError(`${name}: ${e.message}: not a ledger loopledger wrote (edited by hand?)`);
    throw e;
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
export function sameEverywhere(ledgers: readonly ShardLedger[], what: string, get: (r: ShardLedger['report']) => unknown): void {
  const first = ledgers[0]!;
  const want = JSON.stringify(get(first.report));
  for (const l of ledgers.slice(1)) {
    const got = JSON.stringify(get(l.report));
    if (got !== want) throw new MergeError(`${first.name} and ${l.name} differ in ${what}: ${want ?? '(absent)'} vs ${got ?? '(absent)'}`);
  }
}
