// JUnit XML: one <testsuite> per input file, one <testcase> per session. A session fails when it
// reaches --fail-on; with --fail-on none, when enforce would have stopped it, so the report still
// shows the loops a CI gate would care about. An input that could not be analyzed is an <error>.
// No timestamps or durations: the same ledger gives the same bytes. Written in pieces, one line per
// entry, so a session of any size is never one string.

import type { InputSummary } from '../formats/input.js';
import type { LedgerEntry, LedgerReport, SessionLedger } from '../ledger/types.js';
import { compareCodePoints } from '../read/discover.js';
import { reachedFailOn } from './fail-on.js';
import { type ReportOptions, whole } from './options.js';
import { sanitize } from '../sanitize.js';
import { relativePath } from './paths.js';
import { loopCostPhrase, savedPhrase, sessionCostPhrase } from './money.js';
import { enforceWould, fmtConfidence, maxEnforce, outcomePhrase, strikePhrase } from './text.js';

// Everything outside XML 1.0's Char production (#x9 | #xA | #xD | [#x20-#xD7FF] |
// [#xE000-#xFFFD] | [#x10000-#x10FFFF]); sanitize() already escapes most of them visibly.
const XML_INVALID = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

function xmlEscape(text: unknown): string {
  return sanitize(text)
    .replace(XML_INVALID, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Element text, one sanitized line per item: transcript text cannot add lines of its own. */
function* xmlLines(lines: Iterable<string>): Generator<string> {
  let first = true;
  for (const l of lines) {
    yield (first ? '' : '\n') + xmlEscape(l);
    first = false;
  }
}

function* entryLines(entries: readonly LedgerEntry[]): Generator<string> {
  for (const e of entries) yield entryLine(e);
}

function attrs(a: Record<string, string | number>): string {
  return Object.entries(a)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('');
}

function entryLine(e: LedgerEntry): string {
  const bits = [
    `turn ${e.turn} ${e.run ? `rounds ${e.round}-${e.run.last_round} (${e.run.count})` : `round ${e.round}`}${e.line === null ? '' : ` line ${e.line}`}`,
    `${e.detector}/${e.kind}`,
    e.confidence === null ? '' : `confidence ${fmtConfidence(e.confidence)}`,
    e.strike ? strikePhrase(e.strike, e.kind) : '',
    `off ${e.intervention.off}, telemetry ${e.intervention.telemetry}, enforce ${e.intervention.enforce}`,
    e.after_stop ? '(after stop)' : '',
  ];
  return bits.filter((b) => b !== '').join(': ');
}

function failing(s: SessionLedger, o: ReportOptions): boolean {
  return o.failOn === 'none' ? reachedFailOn(s, 'stop') : reachedFailOn(s, o.failOn);
}

function* testcase(s: SessionLedger, o: ReportOptions, classname: string): Generator<string> {
  const name = s.parent !== null ? `${s.id} (sub-agent of ${s.parent})` : s.id;
  const open = `    <testcase${attrs({ classname, name })}`;
  // Money goes where a person reads first: the failure message, then the lines under it.
  const saved = savedPhrase(s);
  const money = [sessionCostPhrase(s), loopCostPhrase(s), saved].filter((x): x is string => x !== null);
  function* lines(): Generator<string> {
    yield* entryLines(s.entries);
    if (money.length) yield `${money.join('; ')} (list-price estimate)`;
  }
  if (failing(s, o)) {
    const worst = maxEnforce(s);
    const message = `${enforceWould(worst)}: ${outcomePhrase(s)}${saved !== null ? `; ${saved} (list price)` : ''}`;
    yield `${open}>\n      <failure${attrs({ message, type: worst })}>`;
    yield* xmlLines(lines());
    yield '</failure>\n    </testcase>\n';
  } else if (s.entries.length > 0) {
    yield `${open}>\n      <system-out>`;
    yield* xmlLines(lines());
    yield '</system-out>\n    </testcase>\n';
  } else {
    yield `${open}/>\n`;
  }
}

export function* junitChunks(report: LedgerReport, o: ReportOptions): Generator<string> {
  if (!byInputInOrder(report)) {
    yield* junitGrouped(report, o);
    return;
  }
  // Each input's sessions follow one another, in the inputs' order (a run's ledger, a merge's):
  // written as read, each suite's counts read ahead of its test cases, nothing gathered.
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const s of report.sessions) {
    tests += 1;
    if (failing(s, o)) failures += 1;
  }
  for (const i of report.inputs) {
    if (i.error !== undefined) {
      tests += 1;
      errors += 1;
    }
  }
  yield '<?xml version="1.0" encoding="UTF-8"?>\n' + `<testsuites${attrs({ name: 'loopledger', tests, failures, errors })}>\n`;
  const ahead = peekable(report.sessions);
  const behind = report.sessions[Symbol.iterator]();
  for (const input of report.inputs) {
    let n = 0;
    let f = 0;
    for (let s = ahead.peek(); s !== undefined && s.path === input.path; s = ahead.peek()) {
      ahead.next();
      n += 1;
      if (failing(s, o)) f += 1;
    }
    const sessions = function* () {
      for (let k = 0; k < n; k++) yield behind.next().value as SessionLedger;
    };
    yield* suite(input.path, input, sessions(), n, f, o);
  }
  yield '</testsuites>\n';
}

/** Whether every session's input comes in the inputs' order, each input's sessions together, no path listed twice. */
function byInputInOrder(report: LedgerReport): boolean {
  const inputs = report.inputs[Symbol.iterator]();
  let at: string | undefined;
  let last: string | undefined;
  for (const s of report.sessions) {
    while (at !== s.path) {
      const next = inputs.next();
      if (next.done === true) return false;
      at = next.value.path;
      // Strictly in code point order (as a run and a merge list them): no path twice.
      if (last !== undefined && compareCodePoints(last, at) >= 0) return false;
      last = at;
    }
  }
  for (let next = inputs.next(); next.done !== true; next = inputs.next()) {
    if (last !== undefined && compareCodePoints(last, next.value.path) >= 0) return false;
    last = next.value.path;
  }
  return true;
}

function peekable<T>(items: Iterable<T>): { peek(): T | undefined; next(): void } {
  const it = items[Symbol.iterator]();
  let head = it.next();
  return {
    peek: () => (head.done === true ? undefined : head.value),
    next: () => {
      head = it.next();
    },
  };
}

/** One suite: `n` sessions, `f` of them failing, and the input's own error and skipped lines. */
function* suite(p: string, input: InputSummary | undefined, sessions: Iterable<SessionLedger>, n: number, f: number, o: ReportOptions): Generator<string> {
  const rel = relativePath(p, o.cwd);
  const e = input?.error !== undefined ? 1 : 0;
  const skipped = input !== undefined && input.skipped.length > 0;
  yield `  <testsuite${attrs({ name: rel, tests: n + e, failures: f, errors: e, skipped: 0 })}>\n`;
  // Each session whole as its test case is written: the suites hold the thin ones.
  for (const s of sessions) yield* testcase(s.entries.length > 0 ? whole(o, s) : s, o, rel);
  if (input?.error !== undefined) {
    yield `    <testcase${attrs({ classname: rel, name: '(input)' })}>\n      <error${attrs({ message: input.error })}/>\n    </testcase>\n`;
  }
  if (skipped) {
    yield '    <system-err>';
    yield* xmlLines(input.skipped.map((k) => `${rel}:${k.line ?? '?'}: ${k.reason}`));
    yield '</system-err>\n';
  }
  yield '  </testsuite>\n';
}

/** Any other ledger (made by hand, sessions of no input): its sessions grouped by path in maps. */
function* junitGrouped(report: LedgerReport, o: ReportOptions): Generator<string> {
  // Suites follow the inputs' (sorted) order; sessions whose path is not among them still get one.
  // Maps, not scans: a chatgpt export can hold thousands of sessions in one input.
  const inputs = new Map(Array.from(report.inputs, (i) => [i.path, i]));
  const byPath = new Map<string, SessionLedger[]>(Array.from(report.inputs, (i) => [i.path, []]));
  for (const s of report.sessions) {
    const list = byPath.get(s.path);
    if (list) list.push(s);
    else byPath.set(s.path, [s]);
  }
  // The root's totals come first in the document, so they are counted before anything is written.
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const [p, sessions] of byPath) {
    const input = inputs.get(p);
    tests += sessions.length + (input?.error !== undefined ? 1 : 0);
    for (const s of sessions) if (failing(s, o)) failures += 1;
    if (input?.error !== undefined) errors += 1;
  }
  yield '<?xml version="1.0" encoding="UTF-8"?>\n' + `<testsuites${attrs({ name: 'loopledger', tests, failures, errors })}>\n`;
  for (const [p, sessions] of byPath) {
    let f = 0;
    for (const s of sessions) if (failing(s, o)) f += 1;
    yield* suite(p, inputs.get(p), sessions, sessions.length, f, o);
  }
  yield '</testsuites>\n';
}
