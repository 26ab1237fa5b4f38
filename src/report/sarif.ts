// SARIF 2.1.0 for code-scanning UIs: one run, one rule per detector kind (stable ids
// `loopledger/<detector>/<kind>`), one result per entry at the transcript file and line.
// Levels follow enforce: stop -> error, steer -> warning, noted -> note, none -> none.
// GitHub code scanning takes at most 25,000 results per run: past that the strongest are kept
// (every error, then warnings, notes, none; in ledger order within a level) and the rest counted
// in the run's properties. Written in pieces, so the log is never one string.

import type { LedgerEntry, LedgerReport, SessionLedger } from '../ledger/types.js';
import { allKinds, kindInfo } from '../detect/kinds.js';
import { ENFORCE_LEVELS, type EnforceLevel } from '../vocabulary.js';
import { type ReportOptions, whole } from './options.js';
import { relativePath } from './paths.js';
import { jsonChunks } from './json-stream.js';
import { escapeJsonText, sanitize } from '../sanitize.js';
import { totalsPhrases } from './money.js';
import { findingSentence } from './finding-sentence.js';

const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

type SarifLevel = 'none' | 'note' | 'warning' | 'error';
const LEVEL: Record<EnforceLevel, SarifLevel> = { none: 'none', noted: 'note', steer: 'warning', stop: 'error' };
const STRONGEST_FIRST: readonly EnforceLevel[] = [...ENFORCE_LEVELS].reverse();

/** GitHub code scanning's limit of results per run (it rejects more). */
export const SARIF_MAX_RESULTS = 25_000;

// Every kind a detector declares gets a rule, so code-scanning UIs explain a rule before it fires;
// a kind no detector declares (a hand-edited ledger) still gets one, with a generic text.
export function ruleId(detector: string, kind: string): string {
  // Rule ids are identifiers, not prose: anything outside a safe set becomes `_`.
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_');
  return `loopledger/${safe(detector)}/${safe(kind)}`;
}

function ruleName(detector: string, kind: string): string {
  return `${detector}_${kind}`
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** A relative URI reference for the transcript: forward slashes, percent-encoded. */
export function artifactUri(p: string, cwd: string | undefined): string {
  if (p === '-') return 'stdin';
  const rel = relativePath(p, cwd);
  return rel
    .split('/')
    .map((seg, i) => (i === 0 && /^[A-Za-z]:$/.test(seg) ? seg : encodeURIComponent(seg)))
    .join('/');
}

function result(s: SessionLedger, e: LedgerEntry, index: Map<string, number>, cwd: string | undefined): Record<string, unknown> {
  const id = ruleId(e.detector, e.kind);
  const physicalLocation: Record<string, unknown> = {
    artifactLocation: { uri: artifactUri(s.path, cwd) },
  };
  if (e.line !== null && e.line >= 1) physicalLocation['region'] = { startLine: e.line };
  return {
    ruleId: id,
    ruleIndex: index.get(id)!,
    level: LEVEL[e.intervention.enforce],
    message: { text: findingSentence(s, e) },
    locations: [{ physicalLocation }],
    // Stable across runs of the same transcript, so code scanning tracks a finding over time.
    partialFingerprints: { 'loopledgerEntry/v1': `${s.id}:${e.turn}:${e.round}:${e.detector}/${e.kind}` },
    properties: {
      session: s.id,
      parent: s.parent,
      turn: e.turn,
      round: e.round,
      confidence: e.confidence,
      strike: e.strike,
      intervention: e.intervention,
      after_stop: e.after_stop,
      ...(e.round_usage ? { round_usage: e.round_usage } : {}),
      // One result for a run of rounds with the same finding (docs/json.md "Runs").
      ...(e.run ? { run: e.run } : {}),
    },
  };
}

/** How many results of each enforce level are written, strongest first, within `max`. */
function quota(report: LedgerReport, max: number): { keep: Record<EnforceLevel, number>; total: Record<EnforceLevel, number> } {
  const total: Record<EnforceLevel, number> = { none: 0, noted: 0, steer: 0, stop: 0 };
  for (const s of report.sessions) for (const e of s.entries) total[e.intervention.enforce] += 1;
  const keep: Record<EnforceLevel, number> = { none: 0, noted: 0, steer: 0, stop: 0 };
  let room = max;
  for (const l of STRONGEST_FIRST) {
    keep[l] = Math.min(total[l], room);
    room -= keep[l];
  }
  return { keep, total };
}

/** The kept results, strongest level first, each level in ledger order: one pass per level, no copy of the ledger. */
function* results(report: LedgerReport, keep: Record<EnforceLevel, number>, index: Map<string, number>, o: ReportOptions): Generator<Record<string, unknown>> {
  for (const l of STRONGEST_FIRST) {
    let left = keep[l];
    for (const s of report.sessions) {
      if (left === 0) break;
      // Whole only when one of its entries is written at this level.
      let full: SessionLedger | undefined;
      for (const [i, e] of s.entries.entries()) {
        if (e.intervention.enforce !== l) continue;
        full ??= whole(o, s);
        yield result(full, full.entries[i]!, index, o.cwd);
        if (--left === 0) break;
      }
    }
  }
}

export function* sarifChunks(report: LedgerReport, o: ReportOptions, maxResults = SARIF_MAX_RESULTS): Generator<string> {
  const pairs = new Map<string, [string, string]>();
  for (const { detector, kind } of allKinds()) pairs.set(ruleId(detector, kind), [detector, kind]);
  for (const s of report.sessions) for (const e of s.entries) pairs.set(ruleId(e.detector, e.kind), [e.detector, e.kind]);
  const ids = [...pairs.keys()].sort();
  const index = new Map(ids.map((id, i) => [id, i]));
  const rules = ids.map((id) => {
    const [d, k] = pairs.get(id)!;
    const text = kindInfo(d, k)?.sarif ?? `${sanitize(d)} detector: ${sanitize(k)}.`;
    return {
      id,
      name: ruleName(d, k),
      shortDescription: { text: `${sanitize(d)}/${sanitize(k)}` },
      fullDescription: { text },
      // The level a result actually gets comes from enforce; this is only the UI default.
      defaultConfiguration: { level: 'warning' },
      properties: { detector: d, kind: k },
    };
  });

  // Made one by one as they are written, like the results: a merge reads its inputs from disk.
  const notifications: Iterable<Record<string, unknown>> = {
    *[Symbol.iterator]() {
      for (const i of report.inputs) {
        const loc = [{ physicalLocation: { artifactLocation: { uri: artifactUri(i.path, o.cwd) } } }];
        if (i.error !== undefined) yield { level: 'error', message: { text: sanitize(i.error) }, locations: loc };
        for (const k of i.skipped) {
          yield {
            level: 'warning',
            message: { text: `skipped: ${sanitize(k.reason)}` },
            locations: k.line !== null && k.line >= 1
              ? [{ physicalLocation: { ...loc[0]!.physicalLocation, region: { startLine: k.line } } }]
              : loc,
          };
        }
      }
    },
  };

  const { keep, total } = quota(report, maxResults);
  const count = (r: Record<EnforceLevel, number>) => r.stop + r.steer + r.noted + r.none;
  const omitted = count(total) - count(keep);
  const run: Record<string, unknown> = {
    tool: { driver: { name: 'loopledger', version: report.tool.version, rules } },
    invocations: INVOCATIONS,
    // Written by its own generator (below): the results are made one by one as they are written.
    results: RESULTS,
  };
  if (omitted > 0) {
    const byLevel = (r: Record<EnforceLevel, number>) =>
      Object.fromEntries(STRONGEST_FIRST.map((l) => [LEVEL[l], r[l]]));
    run['properties'] = {
      resultsTotal: count(total),
      resultsOmitted: omitted,
      resultsLimit: maxResults,
      resultsByLevel: byLevel(total),
      resultsOmittedByLevel: byLevel(Object.fromEntries(STRONGEST_FIRST.map((l) => [l, total[l] - keep[l]])) as Record<EnforceLevel, number>),
    };
  }
  if (report.summary.cost) {
    run['properties'] = {
      ...(run['properties'] as Record<string, unknown> | undefined),
      cost: report.summary.cost,
      enforce_saved: report.summary.enforce.saved,
      pricing: report.pricing,
      summary: totalsPhrases(report).join('; ') + ' (list-price estimates)',
    };
  }
  const log = { $schema: SARIF_SCHEMA, version: '2.1.0', runs: [run] };
  const splices = new Map([
    [RESULTS, (indent: string) => jsonChunks(results(report, keep, index, o), 1, new Map(), indent)],
    [INVOCATIONS, (indent: string) => jsonChunks([{ executionSuccessful: true, toolExecutionNotifications: notifications }], 3, new Map(), indent)],
  ]);
  for (const c of jsonChunks(log, 3, splices)) yield escapeJsonText(c);
  yield '\n';
}

/** Stand for the results and invocations arrays in the log object; identity is what counts. */
const RESULTS: unknown[] = [];
const INVOCATIONS: unknown[] = [];
