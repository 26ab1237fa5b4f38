// A run with a judge. The ledger is built synchronously and must stay deterministic, while the
// judge is an HTTP call; so arbitration happens between passes, never inside one:
//   1. every file is analyzed with the verdicts in hand (the cache); evidence nobody has answered
//      is Indeterminate for now and written down (ladder/verdicts.ts);
//   2. that evidence, deduplicated across all files, is put to the judge, at most
//      `judge.concurrency` requests in flight;
//   3. the files that met it are analyzed again with the answers, which may lead their ladders to
//      new evidence (a cleared steer changes what follows): repeat 2-3 until nothing is new.
// A file's final ledger is thus exactly the ledger of a run whose cache already held every
// answer: the same verdicts give the same ledger, byte for byte, whatever the order answers came.

import { askJudge, type AskOutcome } from './client.js';
import { type CachedVerdict, loadJudgeCache, saveJudgeCache } from './cache.js';
import type { JudgeConnection } from './settings.js';
import type { JudgePlan, KnownVerdict, PendingArbitration } from '../ladder/verdicts.js';
import type { ChatMessage } from '../ladder/judge-prompt.js';
import type { JudgeUsage } from '../ledger/types.js';
import { redactUrls } from '../config/redact.js';
import { isUsableAmount, roundUsd } from '../money/account.js';
import type { Quote } from '../money/prices.js';

/** What a pass reports about the judge, per file. */
export interface JudgedFile {
  judge?: { pending: PendingArbitration[]; answered: string[] };
}

/** Analyze `files` (in order) with `plan`; `secondLook`: the files were analyzed once already (their diagnostics given). */
export type JudgePass<R extends JudgedFile> = (files: readonly string[], plan: JudgePlan, secondLook: boolean) => Promise<R[]>;

export interface JudgeRunOptions {
  onWarning?: (message: string) => void;
  /** The request itself (tests and the hook may substitute); defaults to the HTTP client. */
  ask?: (connection: JudgeConnection, messages: readonly ChatMessage[]) => Promise<AskOutcome>;
  /** The list price of one request's tokens at the judge's model; without it the judge is not priced. */
  price?: (inputTokens: number, outputTokens: number) => Quote;
}

/**
 * Each pass answers at least one new piece of evidence, so passes end by themselves; this bound is
 * for the pathological case only (it would take that many rounds of newly uncovered evidence).
 */
const MAX_JUDGE_PASSES = 50;

export async function runWithJudge<R extends JudgedFile>(
  files: readonly string[],
  connection: JudgeConnection,
  pass: JudgePass<R>,
  options: JudgeRunOptions = {},
): Promise<{ results: R[]; usage: JudgeUsage }> {
  const warn = options.onWarning ?? (() => {});
  const ask = options.ask ?? askJudge;
  const usage: JudgeUsage = { requests: 0, input_tokens: 0, output_tokens: 0, cached: 0, failed: 0 };

  const known = new Map<string, KnownVerdict>();
  const fromCache = new Set<string>();
  if (connection.cache !== null) {
    const cache = await loadJudgeCache(connection.cache);
    if (cache.skipped > 0) warn(`judge.cache ${connection.cache}: ${cache.skipped} entr${cache.skipped === 1 ? 'y is' : 'ies are'} not verdicts; ignored`);
    for (const [key, v] of cache.verdicts) {
      known.set(key, { verdict: v.verdict, confidence: v.confidence });
      fromCache.add(key);
    }
  }
  const plan: JudgePlan = { model: connection.model, verdicts: known };
  if (connection.blocked) plan.blocked = connection.blocked;

  const breaker = new Breaker(Math.max(BREAKER_MIN_FAILURES, 2 * connection.concurrency));
  const fresh = new Map<string, CachedVerdict>();
  const failures = new Map<string, number>();
  const results = await pass(files, plan, false);
  for (let round = 0; ; round++) {
    const pending = new Map<string, PendingArbitration>();
    for (const r of results) for (const p of r.judge?.pending ?? []) if (!known.has(p.key) && !pending.has(p.key)) pending.set(p.key, p);
    if (pending.size === 0) break;
    if (round >= MAX_JUDGE_PASSES) {
      warn(`judge: still new evidence after ${MAX_JUDGE_PASSES} passes; ${pending.size} piece(s) stay Indeterminate`);
      break;
    }
    const asked = [...pending.values()];
    const outcomes = await inPool(asked, connection.concurrency, async (p) => {
      if (breaker.open) return null;
      const o = await askSafely(ask, connection, p.messages);
      breaker.record(o);
      return o;
    });
    if (breaker.open && !plan.blocked) {
      plan.blocked = 'judge_unavailable';
      warn(
        `judge: ${breaker.threshold} requests in a row got no answer from ${redactUrls(connection.url)}; it is not asked again this run, the heuristic verdicts stand`,
      );
    }
    asked.forEach((p, i) => {
      const o = outcomes[i];
      if (!o) {
        known.set(p.key, { verdict: 'indeterminate', confidence: null, unusable: 'judge_unavailable', consulted: false });
        return;
      }
      usage.requests += 1;
      usage.input_tokens += o.inputTokens;
      usage.output_tokens += o.outputTokens;
      // Priced request by request, as the sessions are: a price may depend on the prompt's size.
      if (options.price) addPrice(usage, o.usageProblem !== undefined ? { usd: null, reason: o.usageProblem } : options.price(o.inputTokens, o.outputTokens));
      if (o.answer) {
        known.set(p.key, { verdict: o.answer.verdict, confidence: o.answer.confidence });
        fresh.set(p.key, { model: connection.model, signal: p.signal, ...o.answer });
      } else {
        // Remembered for this run only ("one attempt per arbitration"); the next run asks again.
        const why = o.unusable ?? 'unparsable';
        known.set(p.key, { verdict: 'indeterminate', confidence: null, unusable: why });
        usage.failed += 1;
        failures.set(why, (failures.get(why) ?? 0) + 1);
      }
    });
    const again = results.flatMap((r, i) => ((r.judge?.pending.length ?? 0) > 0 ? [i] : []));
    const looked = await pass(again.map((i) => files[i]!), plan, true);
    again.forEach((fileIndex, j) => (results[fileIndex] = looked[j]!));
  }

  const answered = new Set<string>();
  for (const r of results) for (const key of r.judge?.answered ?? []) answered.add(key);
  for (const key of answered) if (fromCache.has(key)) usage.cached += 1;

  if (usage.failed > 0) {
    const why = [...failures].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => `${k.replace('_', ' ')} ×${n}`);
    warn(
      `judge: ${usage.failed} of ${usage.requests} request(s) gave no usable answer (${why.join(', ')}); the heuristic verdicts stand for that evidence`,
    );
  }
  if (connection.cache !== null && fresh.size > 0) {
    try {
      await saveJudgeCache(connection.cache, fresh);
    } catch (e) {
      warn((e as Error).message);
    }
  }
  return { results, usage };
}

/** One request's price into the run's: one request without a price leaves the total unknown, with the reason. */
function addPrice(usage: JudgeUsage, quote: Quote): void {
  if (usage.usd === null) return;
  if (quote.usd === null) {
    usage.usd = null;
    usage.usd_reason = quote.reason;
    return;
  }
  const usd = (usage.usd ?? 0) + quote.usd;
  if (!isUsableAmount(usd)) {
    usage.usd = null;
    usage.usd_reason = 'the requests\' prices add up to more than the ledger can count';
    return;
  }
  usage.usd = roundUsd(usd);
}

/**
 * A dead endpoint (down, wrong model, revoked key) would otherwise cost every piece of evidence in
 * a store its full timeout. After this many requests in a row without an answer (and at least
 * twice the requests in flight, so one slow burst is not enough) the run stops asking.
 */
const BREAKER_MIN_FAILURES = 8;

class Breaker {
  private streak = 0;
  open = false;

  constructor(readonly threshold: number) {}

  record(o: AskOutcome): void {
    // An unreadable reply still means the endpoint answers.
    if (o.answer || o.unusable === 'unparsable') this.streak = 0;
    else if (++this.streak >= this.threshold) this.open = true;
  }
}

/** The client never throws; a substitute might. */
async function askSafely(
  ask: NonNullable<JudgeRunOptions['ask']>,
  connection: JudgeConnection,
  messages: readonly ChatMessage[],
): Promise<AskOutcome> {
  try {
    return await ask(connection, messages);
  } catch {
    return { answer: null, unusable: 'network', inputTokens: 0, outputTokens: 0 };
  }
}

/** `fn` over `items` with at most `limit` calls in flight; results in input order. */
async function inPool<T, U>(items: readonly T[], limit: number, fn: (item: T) => Promise<U>): Promise<U[]> {
  const out: U[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return out;
}
