// What `merge` accepts as a ledger: a shard may have been edited by hand or cut short, and the
// merge and every renderer trust what passes here. Types, ranges (finite, non-negative), each
// session's totals against its entries, the inputs' session counts against the sessions, and the
// summary against the sessions. A refusal names the file and the field by its JSON path
// (`sessions[3].usage.input_tokens`), never "internal error".

import { MAX_AMOUNT } from '../money/account.js';
import { ENFORCE_LEVELS } from '../vocabulary.js';
import { FORMAT_NAMES } from '../model/transcript.js';
import type { DetectorName } from '../detect/types.js';
import { SummaryTally } from '../ledger/summary.js';
import type { LedgerSummary, SessionLedger } from '../ledger/types.js';
import { isRecord } from '../is-record.js';

/** Deeper than any ledger loopledger writes (evidence is a few levels); a deeper value is not ours and would overflow a writer's stack. */
const MAX_LEDGER_DEPTH = 64;

const DETECTORS: readonly DetectorName[] = ['tool_batch', 'output', 'thinking'];
const LEVELS: readonly string[] = ENFORCE_LEVELS;
const FORMATS: readonly string[] = FORMAT_NAMES;

/** A field that is not what a ledger holds: the JSON path and what was expected there. */
export class LedgerFieldError extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
    readonly got: unknown,
  ) {
    super(`${path}: ${expected}, got ${shown(got)}`);
  }
}

function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object' && v !== null) return 'an object';
  const text = typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

type Rec = Record<string, unknown>;

function record(v: unknown, path: string): Rec {
  if (!isRecord(v)) throw new LedgerFieldError(path, 'expected an object', v);
  return v;
}
function list(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new LedgerFieldError(path, 'expected a list', v);
  return v;
}
function text(v: unknown, path: string): string {
  if (typeof v !== 'string') throw new LedgerFieldError(path, 'expected a string', v);
  return v;
}
function textOrNull(v: unknown, path: string): string | null {
  if (v !== null && typeof v !== 'string') throw new LedgerFieldError(path, 'expected a string or null', v);
  return v;
}
function optionalText(v: unknown, path: string): void {
  if (v !== undefined) text(v, path);
}
/** A count: an integer, 0 or more (negative tokens are no refund, 1e308 no count). */
function count(v: unknown, path: string, min = 0): number {
  if (!Number.isSafeInteger(v) || (v as number) < min) throw new LedgerFieldError(path, `expected an integer ≥ ${min}`, v);
  return v as number;
}
/** Tokens may be fractional in some logs (never negative, never infinite). */
function amount(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_AMOUNT) {
    throw new LedgerFieldError(path, `expected a finite number from 0 to ${MAX_AMOUNT}`, v);
  }
  return v;
}
function amountOrNull(v: unknown, path: string): number | null {
  return v === null ? null : amount(v, path);
}
function oneOf(v: unknown, allowed: readonly string[], path: string): string {
  if (typeof v !== 'string' || !allowed.includes(v)) throw new LedgerFieldError(path, `expected one of ${allowed.join(', ')}`, v);
  return v;
}
function confidence(v: unknown, path: string): void {
  if (v === null) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) throw new LedgerFieldError(path, 'expected a number from 0 to 1, or null', v);
}

/** Sums of doubles in another order differ in the last bits: equal up to a billionth, relative. */
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * The path of the first value nested `limit` levels deep, or null. Walked with an explicit stack of
 * frames (a 100k-deep array must not overflow this check either), one frame per level, so the
 * path is only spelled out when there is one to report.
 */
function tooDeep(value: unknown, limit: number): string | null {
  type Frame = { node: object; keys: string[] | null; next: number; key: string };
  const frame = (node: object, key: string): Frame => ({ node, keys: Array.isArray(node) ? null : Object.keys(node), next: 0, key });
  if (typeof value !== 'object' || value === null) return null;
  const stack: Frame[] = [frame(value, '')];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const size = top.keys === null ? (top.node as unknown[]).length : top.keys.length;
    if (top.next >= size) {
      stack.pop();
      continue;
    }
    const i = top.next++;
    const key = top.keys === null ? `[${i}]` : `.${top.keys[i]!}`;
    const child = top.keys === null ? (top.node as unknown[])[i] : (top.node as Rec)[top.keys[i]!];
    if (typeof child !== 'object' || child === null) continue;
    if (stack.length >= limit) return [...stack.slice(1).map((f) => f.key), key].join('').replace(/^\./, '');
    stack.push(frame(child, key));
  }
  return null;
}

function checkTimeline(v: unknown, path: string): void {
  const t = record(v, path);
  count(t['turn_starts_more'], `${path}.turn_starts_more`);
  list(t['turn_starts'], `${path}.turn_starts`).forEach((p, i) => {
    const pair = list(p, `${path}.turn_starts[${i}]`);
    if (pair.length !== 2) throw new LedgerFieldError(`${path}.turn_starts[${i}]`, 'expected [turn, round]', p);
    count(pair[0], `${path}.turn_starts[${i}][0]`);
    count(pair[1], `${path}.turn_starts[${i}][1]`);
  });
  list(t['spend'], `${path}.spend`).forEach((p, i) => {
    const point = list(p, `${path}.spend[${i}]`);
    if (point.length !== 3) throw new LedgerFieldError(`${path}.spend[${i}]`, 'expected [round, tokens, usd]', p);
    count(point[0], `${path}.spend[${i}][0]`);
    amountOrNull(point[1], `${path}.spend[${i}][1]`);
    amountOrNull(point[2], `${path}.spend[${i}][2]`);
  });
}

/** A run's rounds (ledger/runs.ts): from the entry's round on, every `period`th, within the session, one finding each. */
function checkRun(v: unknown, path: string, round: number, rounds: number): number {
  const run = record(v, path);
  const first = count(run['first_round'], `${path}.first_round`, 1);
  if (first !== round) throw new LedgerFieldError(`${path}.first_round`, `expected ${round}, the entry's round`, first);
  const last = count(run['last_round'], `${path}.last_round`, first);
  if (last > rounds) throw new LedgerFieldError(`${path}.last_round`, `expected at most the session's ${rounds} rounds`, last);
  const period = run['period'] === undefined ? 1 : count(run['period'], `${path}.period`, 1);
  if ((last - first) % period !== 0) throw new LedgerFieldError(`${path}.last_round`, `expected first_round plus a whole number of periods (${period})`, last);
  const n = count(run['count'], `${path}.count`, 1);
  const inRun = (last - first) / period + 1;
  if (n !== inRun) throw new LedgerFieldError(`${path}.count`, `expected ${inRun}, the rounds from first_round to last_round${period > 1 ? ` every ${period}` : ''}`, n);
  if (run['last_line'] !== null) count(run['last_line'], `${path}.last_line`, 1);
  if (run['usage'] !== undefined) {
    const u = record(run['usage'], `${path}.usage`);
    amountOrNull(u['tokens'], `${path}.usage.tokens`);
    amountOrNull(u['usd'], `${path}.usage.usd`);
  }
  return n;
}

/** Findings past the entries a session lists (ledger/runs.ts): counts within the session's rounds. */
function checkUnlisted(v: unknown, path: string, rounds: number): { steers: number; stops: number } {
  const u = record(v, path);
  const findings = count(u['findings'], `${path}.findings`, 1);
  const withFindings = count(u['rounds'], `${path}.rounds`, 1);
  if (withFindings > findings) throw new LedgerFieldError(`${path}.rounds`, `expected at most its ${findings} findings`, withFindings);
  const first = count(u['first_round'], `${path}.first_round`, 1);
  const last = count(u['last_round'], `${path}.last_round`, first);
  if (last > rounds) throw new LedgerFieldError(`${path}.last_round`, `expected at most the session's ${rounds} rounds`, last);
  if (withFindings > last - first + 1) throw new LedgerFieldError(`${path}.rounds`, `expected at most the ${last - first + 1} rounds from first_round to last_round`, withFindings);
  const steers = count(u['steers'], `${path}.steers`);
  const stops = count(u['stops'], `${path}.stops`);
  if (steers + stops > findings) throw new LedgerFieldError(`${path}.steers`, `expected steers and stops together at most its ${findings} findings`, steers);
  const kinds = record(u['kinds'], `${path}.kinds`);
  let perKind = 0;
  for (const [k, n] of Object.entries(kinds)) perKind += count(n, `${path}.kinds.${k}`, 1);
  if (perKind !== findings) throw new LedgerFieldError(`${path}.kinds`, `expected its ${findings} findings, kind by kind`, `${perKind}`);
  if (u['usage'] !== undefined) {
    const usage = record(u['usage'], `${path}.usage`);
    amountOrNull(usage['tokens'], `${path}.usage.tokens`);
    amountOrNull(usage['usd'], `${path}.usage.usd`);
  }
  text(u['reason'], `${path}.reason`);
  return { steers, stops };
}

/** The entry's enforce level, and how many rounds (findings) it stands for. */
function checkEntry(v: unknown, path: string, turns: number, rounds: number): { level: string; count: number } {
  const e = record(v, path);
  const turn = count(e['turn'], `${path}.turn`, 1);
  if (turn > turns) throw new LedgerFieldError(`${path}.turn`, `expected at most the session's ${turns} turns`, turn);
  const round = count(e['round'], `${path}.round`, 1);
  if (round > rounds) throw new LedgerFieldError(`${path}.round`, `expected at most the session's ${rounds} rounds`, round);
  if (e['line'] !== null) count(e['line'], `${path}.line`, 1);
  oneOf(e['detector'], DETECTORS, `${path}.detector`);
  text(e['kind'], `${path}.kind`);
  confidence(e['confidence'], `${path}.confidence`);
  const intervention = record(e['intervention'], `${path}.intervention`);
  oneOf(intervention['telemetry'], LEVELS, `${path}.intervention.telemetry`);
  const enforce = oneOf(intervention['enforce'], LEVELS, `${path}.intervention.enforce`);
  if (typeof e['after_stop'] !== 'boolean') throw new LedgerFieldError(`${path}.after_stop`, 'expected true or false', e['after_stop']);
  if (e['round_usage'] !== undefined) {
    const u = record(e['round_usage'], `${path}.round_usage`);
    amountOrNull(u['tokens'], `${path}.round_usage.tokens`);
    amountOrNull(u['usd'], `${path}.round_usage.usd`);
  }
  optionalText(e['reminder'], `${path}.reminder`);
  optionalText(e['finalization_reason'], `${path}.finalization_reason`);
  if (e['trace'] !== undefined) {
    // Written back as the record's ids by --format otlp: hex of OTLP's lengths, or no link at all.
    const t = record(e['trace'], `${path}.trace`);
    for (const [key, digits] of [['trace_id', 32], ['span_id', 16]] as const) {
      const id = t[key];
      if (typeof id !== 'string' || !new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(id)) {
        throw new LedgerFieldError(`${path}.trace.${key}`, `expected ${digits} hex digits`, id);
      }
    }
  }
  const n = e['run'] === undefined ? 1 : checkRun(e['run'], `${path}.run`, round, rounds);
  return { level: enforce, count: n };
}

function checkSession(v: unknown, path: string): void {
  const s = record(v, path);
  text(s['id'], `${path}.id`);
  text(s['path'], `${path}.path`);
  oneOf(s['format'], FORMATS, `${path}.format`);
  textOrNull(s['parent'], `${path}.parent`);
  textOrNull(s['model'], `${path}.model`);
  if (s['project'] !== undefined) textOrNull(s['project'], `${path}.project`);
  const turns = count(s['turns'], `${path}.turns`);
  const rounds = count(s['rounds'], `${path}.rounds`);
  count(s['tool_calls'], `${path}.tool_calls`);
  let steers = 0;
  let stops = 0;
  list(s['entries'], `${path}.entries`).forEach((e, i) => {
    const { level, count: n } = checkEntry(e, `${path}.entries[${i}]`, turns, rounds);
    if (level === 'steer') steers += n;
    if (level === 'stop') stops += n;
  });
  if (s['unlisted'] !== undefined) {
    const u = checkUnlisted(s['unlisted'], `${path}.unlisted`, rounds);
    steers += u.steers;
    stops += u.stops;
  }
  const enforce = record(record(s['outcome'], `${path}.outcome`)['enforce'], `${path}.outcome.enforce`);
  // Every steer and stop of a session is one of its entries (ledger/build.ts counts them so).
  const steerCount = count(enforce['steers'], `${path}.outcome.enforce.steers`);
  if (steerCount !== steers) throw new LedgerFieldError(`${path}.outcome.enforce.steers`, `expected ${steers}, the entries that steer`, steerCount);
  const stopList = list(enforce['stops'], `${path}.outcome.enforce.stops`);
  stopList.forEach((st, i) => {
    const stop = record(st, `${path}.outcome.enforce.stops[${i}]`);
    count(stop['turn'], `${path}.outcome.enforce.stops[${i}].turn`, 1);
    const round = count(stop['round'], `${path}.outcome.enforce.stops[${i}].round`, 1);
    if (stop['recovered_at'] !== undefined) count(stop['recovered_at'], `${path}.outcome.enforce.stops[${i}].recovered_at`, round + 1);
  });
  if (stopList.length !== stops) throw new LedgerFieldError(`${path}.outcome.enforce.stops`, `expected ${stops} stops, the entries that stop`, `${stopList.length} stops`);

  let tokens: number | null = null;
  if (s['usage'] !== undefined) {
    const u = record(s['usage'], `${path}.usage`);
    const requests = count(u['requests'], `${path}.usage.requests`);
    if (requests > rounds) throw new LedgerFieldError(`${path}.usage.requests`, `expected at most the session's ${rounds} rounds`, requests);
    const parts = ['input_tokens', 'cache_read_tokens', 'cache_write_tokens', 'output_tokens'].map((k) => amount(u[k], `${path}.usage.${k}`));
    const output = parts[3]!;
    const reasoning = amount(u['reasoning_tokens'], `${path}.usage.reasoning_tokens`);
    if (reasoning > output) throw new LedgerFieldError(`${path}.usage.reasoning_tokens`, `expected at most the ${output} output tokens it is part of`, reasoning);
    if (u['tokens'] !== undefined) {
      tokens = amount(u['tokens'], `${path}.usage.tokens`);
      const sum = parts.reduce((a, b) => a + b, 0);
      if (!close(tokens, sum)) throw new LedgerFieldError(`${path}.usage.tokens`, `expected ${sum}, the sum of input, cache and output tokens`, tokens);
    }
  }
  let usd: number | null = null;
  if (s['cost'] !== undefined) {
    const c = record(s['cost'], `${path}.cost`);
    usd = amountOrNull(c['usd'], `${path}.cost.usd`);
    const reason = textOrNull(c['reason'], `${path}.cost.reason`);
    if (usd === null && reason === null) throw new LedgerFieldError(`${path}.cost.reason`, 'expected why the cost is unknown (usd is null)', reason);
  }
  let prevented = 0;
  for (const part of ['saved', 'cut'] as const) {
    if (enforce[part] === undefined) continue;
    const at = `${path}.outcome.enforce.${part}`;
    const sv = record(enforce[part], at);
    const partRounds = count(sv['rounds'], `${at}.rounds`);
    prevented += partRounds;
    if (prevented > rounds) throw new LedgerFieldError(`${at}.rounds`, `expected saved and cut together at most the session's ${rounds} rounds`, partRounds);
    const partTokens = amountOrNull(sv['tokens'], `${at}.tokens`);
    if (partTokens !== null && tokens !== null && partTokens > tokens && !close(partTokens, tokens)) {
      throw new LedgerFieldError(`${at}.tokens`, `expected at most the session's ${tokens} tokens`, partTokens);
    }
    const partUsd = amountOrNull(sv['usd'], `${at}.usd`);
    // What a stop prevents is part of what the session cost: "saved $12,345" of a $0.01 session is an edit.
    if (partUsd !== null && usd !== null && partUsd > usd && !close(partUsd, usd)) {
      throw new LedgerFieldError(`${at}.usd`, `expected at most the session's cost, ${usd}`, partUsd);
    }
  }
  if (s['recorded_cost'] !== undefined) {
    const rc = record(s['recorded_cost'], `${path}.recorded_cost`);
    amount(rc['usd'], `${path}.recorded_cost.usd`);
    text(rc['source'], `${path}.recorded_cost.source`);
  }
  if (s['timeline'] !== undefined) checkTimeline(s['timeline'], `${path}.timeline`);
}

function checkInput(v: unknown, path: string): void {
  const input = record(v, path);
  text(input['path'], `${path}.path`);
  if (input['format'] !== null) oneOf(input['format'], FORMATS, `${path}.format`);
  count(input['sessions'], `${path}.sessions`);
  count(input['lines'], `${path}.lines`);
  const skipped = list(input['skipped'], `${path}.skipped`);
  const skippedLines = count(input['skipped_lines'], `${path}.skipped_lines`);
  if (skippedLines < skipped.length) throw new LedgerFieldError(`${path}.skipped_lines`, `expected at least the ${skipped.length} skipped lines listed`, skippedLines);
  skipped.forEach((k, i) => {
    const line = record(k, `${path}.skipped[${i}]`);
    if (line['line'] !== null) count(line['line'], `${path}.skipped[${i}].line`, 1);
    text(line['reason'], `${path}.skipped[${i}].reason`);
  });
  optionalText(input['error'], `${path}.error`);
}

function checkJudge(v: unknown, path: string): void {
  const j = record(v, path);
  for (const k of ['requests', 'input_tokens', 'output_tokens', 'cached', 'failed']) {
    if (j[k] !== undefined) amount(j[k], `${path}.${k}`);
  }
  if (j['usd'] !== undefined) amountOrNull(j['usd'], `${path}.usd`);
  optionalText(j['usd_reason'], `${path}.usd_reason`);
}

/** The first field where the recorded summary and the one its sessions add up to differ. */
function summaryDifference(recorded: Rec, computed: LedgerSummary): { path: string; want: unknown; got: unknown } | null {
  const pairs: [string, unknown, unknown][] = [];
  const walk = (want: unknown, got: unknown, path: string) => {
    if (isRecord(want)) {
      for (const [k, w] of Object.entries(want)) walk(w, isRecord(got) ? got[k] : undefined, `${path}.${k}`);
    } else if (Array.isArray(want) && Array.isArray(got) && want.length === got.length) {
      // A list the sessions add up to (summary.loop_shapes): element by element, numbers within rounding.
      want.forEach((w, i) => walk(w, got[i], `${path}[${i}]`));
    } else if (Array.isArray(want)) {
      pairs.push([path, `a list of ${want.length}`, Array.isArray(got) ? `a list of ${got.length}` : got]);
    } else pairs.push([path, want, got]);
  };
  const { judge: _counted, ...derived } = computed;
  walk(derived, recorded, 'summary');
  for (const [path, want, got] of pairs) {
    // A field the recorded summary leaves out is no disagreement: merge recomputes it anyway; nor
    // is a path, which names the same file however it is spelled (a session is known by its content).
    if (got === undefined || path.endsWith('.path')) continue;
    const same = typeof want === 'number' && typeof got === 'number' ? close(want, got) : want === got;
    if (!same) return { path, want, got };
  }
  return null;
}

/** `value` as a ledger merge can trust, or a LedgerFieldError naming the first field that is not. */
export function checkLedgerFields(value: Rec): void {
  const deep = tooDeep(value, MAX_LEDGER_DEPTH);
  if (deep !== null) throw new LedgerFieldError(deep, `nested deeper than ${MAX_LEDGER_DEPTH} levels, which no ledger is`, []);
  const inputs = list(value['inputs'], 'inputs');
  inputs.forEach((v, i) => checkInput(v, `inputs[${i}]`));
  const sessions = list(value['sessions'], 'sessions');
  sessions.forEach((v, i) => checkSession(v, `sessions[${i}]`));
  const seen = new SessionsSeen();
  for (const v of sessions) seen.add(v as SessionLedger);
  const inputsSeen = new InputsSeen();
  for (const v of inputs) inputsSeen.note(v as Rec);
  checkLedgerTotals(value, seen, inputsSeen);
}

/** `sessions[index]` of a ledger read in pieces, checked as it arrives, nesting included. */
export function checkSessionField(value: unknown, index: number): void {
  // The session sits two levels down (document, sessions): its own walk stops two levels sooner.
  const deep = tooDeep(value, MAX_LEDGER_DEPTH - 2);
  const path = `sessions[${index}]`;
  if (deep !== null) throw new LedgerFieldError(`${path}${deep.startsWith('[') ? '' : '.'}${deep}`, `nested deeper than ${MAX_LEDGER_DEPTH} levels, which no ledger is`, []);
  checkSession(value, path);
}

/**
 * What the checks of a ledger's totals need of its sessions, gathered as they arrive (a merge
 * holds none of them): how many each path has, where the first of each is, and their summary.
 */
export class SessionsSeen {
  private readonly perPath = new Map<string, { count: number; first: number }>();
  private readonly tally = new SummaryTally();
  private index = 0;

  add(s: SessionLedger): void {
    const own = this.perPath.get(s.path);
    if (own === undefined) this.perPath.set(s.path, { count: 1, first: this.index });
    else own.count += 1;
    this.tally.add(s);
    this.index += 1;
  }

  /** How many sessions have this path. */
  count(path: string): number {
    return this.perPath.get(path)?.count ?? 0;
  }

  /** The first session whose path is not among these, as its index and path. */
  firstOutside(paths: { has(path: string): boolean }): { index: number; path: string } | null {
    let found: { index: number; path: string } | null = null;
    for (const [path, { first }] of this.perPath) if (!paths.has(path) && (found === null || first < found.index)) found = { index: first, path };
    return found;
  }

  /** Their summary, with the inputs' skipped lines added up. */
  summary(skippedLines: number): LedgerSummary {
    return this.tally.summary([{ skipped_lines: skippedLines }]);
  }
}

/**
 * What the checks of a ledger's totals need of its inputs, gathered as they arrive (a merge holds
 * none of them): each one's path and the sessions it says it gave, where each path is first, their
 * skipped lines, and the first refusals of their checks, kept for checkLedgerRest to give in the
 * order a check of the whole ledger meets them.
 */
export class InputsSeen {
  /** Each input's path, in order (a path listed twice, twice). */
  readonly paths: string[] = [];
  /** Where each path is first listed. */
  readonly places = new Map<string, number>();
  private readonly declared: number[] = [];
  private skippedLines = 0;
  /** The path of the first value nested too deep in an input, and the first input refused. */
  private deep: string | null = null;
  private refusal: LedgerFieldError | null = null;

  /** `inputs[index]` checked as it arrives, nesting included: false when it is refused (said by checkLedgerRest). */
  add(value: unknown, index: number): boolean {
    const path = `inputs[${index}]`;
    if (this.deep === null) {
      // The input sits two levels down (document, inputs), as a session does.
      const deep = tooDeep(value, MAX_LEDGER_DEPTH - 2);
      if (deep !== null) this.deep = `${path}${deep.startsWith('[') ? '' : '.'}${deep}`;
    }
    if (this.refusal === null) {
      try {
        checkInput(value, path);
      } catch (e) {
        if (!(e instanceof LedgerFieldError)) throw e;
        this.refusal = e;
      }
    }
    if (this.deep !== null || this.refusal !== null) return false;
    this.note(value as Rec);
    return true;
  }

  /** An input already checked. */
  note(input: Rec): void {
    const path = input['path'] as string;
    if (!this.places.has(path)) this.places.set(path, this.paths.length);
    this.paths.push(path);
    this.declared.push(input['sessions'] as number);
    this.skippedLines += input['skipped_lines'] as number;
  }

  /** The first value nested too deep in an input, as its path in the ledger. */
  get tooDeep(): string | null {
    return this.deep;
  }

  /** The first input refused by its checks. */
  get refused(): LedgerFieldError | null {
    return this.refusal;
  }

  /** The sessions input `i` says it gave. */
  sessionsOf(i: number): number {
    return this.declared[i]!;
  }

  get skipped(): number {
    return this.skippedLines;
  }
}

/**
 * A ledger's `not_transcripts` as a merge reads them, one at a time (checkNotTranscript): the
 * first nested too deep and the first refused, kept for checkLedgerRest to give in the order a
 * ledger read whole gives them.
 */
export class NotTranscriptsSeen {
  private deep: string | null = null;
  private refusal: LedgerFieldError | null = null;

  /** `not_transcripts[index]` checked as it arrives: false when it is refused (said by checkLedgerRest). */
  add(value: unknown, index: number): boolean {
    const path = `not_transcripts[${index}]`;
    if (this.deep === null) {
      // Two levels down (document, not_transcripts), as an input.
      const deep = tooDeep(value, MAX_LEDGER_DEPTH - 2);
      if (deep !== null) this.deep = `${path}${deep.startsWith('[') ? '' : '.'}${deep}`;
    }
    if (this.refusal === null) {
      try {
        checkNotTranscript(value, path);
      } catch (e) {
        if (!(e instanceof LedgerFieldError)) throw e;
        this.refusal = e;
      }
    }
    return this.deep === null && this.refusal === null;
  }

  get tooDeep(): string | null {
    return this.deep;
  }

  get refused(): LedgerFieldError | null {
    return this.refusal;
  }
}

function checkNotTranscript(v: unknown, path: string): void {
  const f = record(v, path);
  text(f['path'], `${path}.path`);
  text(f['reason'], `${path}.reason`);
  text(f['error'], `${path}.error`);
}

/**
 * The rest of a ledger whose sessions were checked one by one: its other fields, the inputs'
 * counts against the sessions, the summary against what they add up to (`seen`, gathered from
 * the sessions as they were read). `others`: its `not_transcripts`, when they were checked as
 * they were read (their member holds none).
 */
export function checkLedgerRest(value: Rec, seen: SessionsSeen, inputs: InputsSeen, others?: NotTranscriptsSeen): void {
  const { sessions: _read, ...rest } = value;
  // Member by member, in their order: the inputs were walked as they arrived (their member holds none).
  for (const key of Object.keys(rest)) {
    const deep =
      key === 'inputs' ? inputs.tooDeep : key === 'not_transcripts' && others !== undefined ? others.tooDeep : tooDeep({ [key]: rest[key] }, MAX_LEDGER_DEPTH);
    if (deep !== null) throw new LedgerFieldError(deep, `nested deeper than ${MAX_LEDGER_DEPTH} levels, which no ledger is`, []);
  }
  if (inputs.refused !== null) throw inputs.refused;
  checkLedgerTotals(value, seen, inputs, others);
}

function checkLedgerTotals(value: Rec, sessions: SessionsSeen, inputs: InputsSeen, others?: NotTranscriptsSeen): void {
  if (others !== undefined) {
    if (others.refused !== null) throw others.refused;
  } else if (value['not_transcripts'] !== undefined) {
    list(value['not_transcripts'], 'not_transcripts').forEach((v, i) => checkNotTranscript(v, `not_transcripts[${i}]`));
  }
  // Each input says how many sessions it gave; a session pushed twice (or dropped) shows here.
  inputs.paths.forEach((path, i) => {
    if (inputs.places.get(path) !== i) throw new LedgerFieldError(`inputs[${i}].path`, 'expected each file once, but it is listed twice', path);
    const n = sessions.count(path);
    if (n !== inputs.sessionsOf(i)) throw new LedgerFieldError(`inputs[${i}].sessions`, `expected ${n}, the sessions with its path`, inputs.sessionsOf(i));
  });
  const outside = sessions.firstOutside(inputs.places);
  if (outside !== null) throw new LedgerFieldError(`sessions[${outside.index}].path`, 'expected the path of one of the inputs', outside.path);
  const summary = record(value['summary'], 'summary');
  if (summary['judge'] !== undefined) checkJudge(summary['judge'], 'summary.judge');
  const computed = sessions.summary(inputs.skipped);
  const diff = summaryDifference(summary, computed);
  if (diff !== null) throw new LedgerFieldError(diff.path, `expected ${shown(diff.want)}, what its sessions add up to`, diff.got);
}
