// `loopledger merge`: shard ledgers in, the ledger one run over everything would have printed out.
// Every file's ledger depends on that file alone, so adding shards up is exact: inputs, sessions
// and files that are no transcripts go back in the order one run gives them (sorted by path, the
// sessions of a file in their own order), the summary is recomputed from them as one run computes
// it (the same sums in the same order, so the same dollars to the last bit), and the judge's
// counters are added. What cannot be added up is refused, naming the difference (shard-checks.ts).

import type { InputSummary } from '../formats/input.js';
import { roundUsd } from '../money/account.js';
import { PeriodTally, periodsOf, type PeriodSpec } from '../ledger/periods.js';
import { assembleReport, noJudgeUsage, summarize, SummaryTally } from '../ledger/summary.js';
import type { JudgeUsage, LedgerReport, LedgerSummary, NotTranscriptFile, SessionLedger } from '../ledger/types.js';
import { compareCodePoints } from '../read/discover.js';
import { FileSet, filesThatMayMeet } from './same-files.js';
import { checkedConfigHash, checkShards, describeConfigDifference, MergeError, sameEverywhere } from './shard-checks.js';
import type { ShardLedger, ShardStore } from './shard-store.js';

/** The merged ledger: its summary and fields, and its files and sessions in the order one run gives them. */
export interface MergedShards {
  /**
   * Its `sessions` is empty: the caller puts the sessions (thin or whole) in its place. Its
   * `inputs` are read from the store as they are iterated. Its `summary` is added up from the
   * thin versions, or, with `summaryAsRead`, as wholeInOrder reads the sessions back.
   */
  report: LedgerReport;
  store: ShardStore;
  /** The store's sessions, in order. */
  sessions: Uint32Array;
  /** Without `summaryAsRead`: their thin versions in that order, the list the summary was added up from. */
  thin?: Iterable<SessionLedger>;
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

/**
 * What only the shards' summaries know, added up; everything else in the summary is recomputed
 * from the merged sessions by assembleReport. A file given twice still counts its judge requests
 * twice: each run did send them.
 */
function addSummaries(ledgers: readonly ShardLedger[]): { judge: JudgeUsage } {
  const judge = noJudgeUsage();
  for (const { report } of ledgers) addJudge(judge, report.summary?.judge);
  return { judge };
}

/**
 * The ones marked 2 of the ranges (the ledgers' files, or their no-transcripts), in code point
 * order of their paths. A ledger loopledger wrote lists them in that order already: then the
 * ledgers' lists are interleaved, reading each path once and holding one per ledger. Otherwise
 * the kept ones' paths are read and sorted.
 */
function keptInPathOrder(
  ranges: readonly { from: number; to: number }[],
  marks: Uint8Array,
  count: number,
  pathOf: (i: number) => string,
  inPathOrder: (range: { from: number; to: number }) => boolean,
): Uint32Array {
  const ordered = new Uint32Array(count);
  if (!ranges.every(inPathOrder)) {
    let at = 0;
    for (let f = 0; f < marks.length; f++) if (marks[f] === 2) ordered[at++] = f;
    const paths = Array.from(ordered, pathOf);
    const order = Array.from(ordered.keys()).sort((a, b) => compareCodePoints(paths[a]!, paths[b]!));
    return Uint32Array.from(order, (i) => ordered[i]!);
  }
  // Each ledger's next kept one and its path; a binary heap of them, the least path on top.
  const heads = ranges.map((r) => ({ next: r.from - 1, to: r.to, path: '' }));
  const advance = (h: (typeof heads)[number]): boolean => {
    do h.next += 1;
    while (h.next < h.to && marks[h.next] !== 2);
    if (h.next >= h.to) return false;
    h.path = pathOf(h.next);
    return true;
  };
  const heap = heads.filter(advance);
  const less = (i: number, j: number) => compareCodePoints(heap[i]!.path, heap[j]!.path) < 0;
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const m = l + 1 < heap.length && less(l + 1, l) ? l + 1 : l;
      if (l >= heap.length || !less(m, i)) return;
      swap(i, m);
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  for (let at = 0; heap.length > 0; at++) {
    const top = heap[0]!;
    ordered[at] = top.next;
    if (!advance(top)) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    down(0);
  }
  return ordered;
}

export interface MergeShardsOptions {
  /** Notes on stderr (a file given twice, counted once). */
  onNote?: (message: string) => void;
  /**
   * The summary is added up as wholeInOrder reads the sessions back (for a writer that reads
   * every session once, in order, before the summary), not from their thin versions: a merge that
   * keeps them on disk reads each session back once, not twice.
   */
  summaryAsRead?: boolean;
}

/**
 * The shards added up, their files and sessions as the store's numbers: the summary is computed
 * from the thin sessions (exactly what it reads), or as the caller reads the whole sessions back in order.
 */
export function mergeShards(ledgers: readonly ShardLedger[], store: ShardStore, options: MergeShardsOptions = {}): MergedShards {
  const onNote = options.onNote ?? (() => {});
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
  // `--by`: each shard's periods are recounted from the sessions, so a period cut by a shard adds up exactly.
  sameEverywhere(ledgers, '--by and --timezone', (r) => (r.periods_by === undefined ? undefined : [r.periods_by, r.timezone]));
  const periods: PeriodSpec | undefined = first.report.periods_by ? { by: first.report.periods_by, timezone: first.report.timezone ?? 'UTC' } : undefined;
  checkShards(ledgers.map((l) => ({ name: l.name, shard: l.report.shard })));

  // Marked 1: files and no-transcripts that may meet another (FileSet decides), then 2: those kept.
  const { files: marks, others: otherMarks } = filesThatMayMeet(store);
  const files = new FileSet(store);
  let count = 0;
  let otherCount = 0;
  for (const { name, files: range, others } of ledgers) {
    for (let f = range.from; f < range.to; f++) {
      if (marks[f] === 1) files.addInput(f, name);
      else {
        marks[f] = 2;
        count += 1;
      }
    }
    for (let o = others.from; o < others.to; o++) {
      if (otherMarks[o] === 1) files.addNotTranscript(o, store.notTranscript(o), name);
      else {
        otherMarks[o] = 2;
        otherCount += 1;
      }
    }
  }
  const { files: met, notTranscripts: metOthers } = files.contents();
  for (const f of met) marks[f] = 2;
  count += met.length;
  for (const o of metOthers) otherMarks[o] = 2;
  otherCount += metOthers.length;
  files.note(onNote);
  const { judge } = addSummaries(ledgers);
  // One run reads files in code point order of their paths and keeps each file's sessions in its
  // own order: files in path order (no two share one), each with its sessions, is exactly that order.
  const ordered = keptInPathOrder(
    ledgers.map((l) => l.files),
    marks,
    count,
    (f) => store.path(f),
    (r) => store.inPathOrder(r),
  );
  const others = keptInPathOrder(
    ledgers.map((l) => l.others),
    otherMarks,
    otherCount,
    (o) => store.notTranscript(o).path,
    (r) => store.notTranscriptsInPathOrder(r),
  );
  let sessionCount = 0;
  for (const f of ordered) sessionCount += store.sessionsOf(f).length;
  const sessions = new Uint32Array(sessionCount);
  let at = 0;
  for (const f of ordered) {
    const own = store.sessionsOf(f);
    for (let i = 0; i < own.length; i++) sessions[at++] = own[i]!;
  }
  // Read from the store each time they are iterated, never held in a list.
  const inputs = store.inputsInOrder(ordered) as InputSummary[];
  // Added up one session at a time in their order, each thin version let go once counted; as read,
  // a summary of no session until a pass of wholeInOrder completes it (its inputs' counts are final).
  const thin = options.summaryAsRead === true ? undefined : store.thinInOrder(sessions);
  const summary = summarize(inputs, thin ?? [], judge);
  const report = assembleReport({
    version: first.report.tool.version,
    config: first.report.config as never,
    inputs: [],
    notTranscripts: [],
    sessions: [],
    judge,
    summary,
    ...(first.report.pricing ? { pricing: first.report.pricing as never } : {}),
    // Added up from the thin versions now, or (as read) by wholeInOrder's pass, as the summary is.
    ...(periods ? { periods } : {}),
  });
  if (periods) Object.assign(report, periodsOf(thin ?? [], periods));
  // In place of assembleReport's copy (which would hold every input): the key keeps its place.
  report.inputs = inputs;
  // Likewise the no-transcripts, read from the store as they are iterated (one per file of a store, at most).
  report.not_transcripts = store.notTranscriptsInOrder(others) as NotTranscriptFile[];
  return { report, store, sessions, ...(thin === undefined ? {} : { thin }) };
}

/**
 * The merged sessions whole, in order, read back one at a time as often as they are iterated.
 * Each complete pass adds up the summary in that order (one run's, so the same dollars to the
 * last bit) and puts it in `merged.report.summary` when it ends: with `summaryAsRead` that is
 * where it is computed (json writes the summary after the sessions, ndjson writes none).
 */
export function wholeInOrder(merged: MergedShards): Iterable<SessionLedger> {
  const { report, store, sessions } = merged;
  return {
    *[Symbol.iterator]() {
      const tally = new SummaryTally();
      const periods = report.periods_by ? new PeriodTally({ by: report.periods_by, timezone: report.timezone ?? 'UTC' }) : null;
      for (const s of sessions) {
        const whole = store.load(s);
        tally.add(whole);
        periods?.add(whole);
        yield whole;
      }
      // In place, as the summary: a copy of the report made before the pass sees the same array.
      if (periods && report.periods) report.periods.splice(0, report.periods.length, ...periods.report().periods);
      // Assigned into the same object, so its keys keep their order and a copy of the report sees it.
      Object.assign(report.summary, tally.summary(report.inputs, report.summary.judge) satisfies LedgerSummary);
    },
  };
}
