// SARIF 2.1.0 for code-scanning UIs: one run, one rule per detector kind (stable ids
// `loopledger/<detector>/<kind>`), one result per entry at the transcript file and line.
// Levels follow enforce: stop -> error, steer -> warning, noted -> note, none -> none.

import type { EnforceLevel, LedgerEntry, LedgerReport, SessionLedger } from '../ledger/types.js';
import type { ReportOptions } from './index.js';
import { relativePath } from './paths.js';
import { escapeJsonText, sanitize } from './sanitize.js';
import { enforceWould, fmtConfidence, fmtStrike } from './text.js';

export const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

type SarifLevel = 'none' | 'note' | 'warning' | 'error';
const LEVEL: Record<EnforceLevel, SarifLevel> = { none: 'none', noted: 'note', steer: 'warning', stop: 'error' };

// Descriptions for the kinds SPEC names, so code-scanning UIs explain a rule even before it
// fires. Kinds not listed here still get a rule (with a generic text) when they occur.
const KNOWN: Record<string, Record<string, string>> = {
  tool_batch: {
    repeated_batch: 'The same tool-call batch with the same answers repeated past the strike threshold.',
    ceiling: 'Read-only tool calls repeated past the observation ceiling.',
    tool_cycle: 'Tool-call batches cycling through the same sequence.',
  },
  output: {
    exact_block: 'A block of visible output repeated verbatim.',
    near_repetition: 'Visible output nearly identical to an earlier window (character n-gram similarity).',
    short_period: 'Visible output repeating with a short period.',
    connector_stalling: 'Visible output stalling on connector phrases without progress.',
    predictable_drift: 'A predictable enumeration (low confidence).',
  },
  thinking: {
    thinking_stagnation: 'Adjacent thinking blocks too similar to each other.',
    identical_thinking: 'Identical thinking blocks.',
    connector_stalling: 'Thinking stalling on connector phrases without progress.',
    reasoning_runaway: 'Opaque reasoning tokens growing against visible output (capped: can only steer).',
  },
};

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

function message(s: SessionLedger, e: LedgerEntry): string {
  const bits = [
    `${sanitize(e.detector)}/${sanitize(e.kind)} in session ${sanitize(s.id)} at turn ${e.turn} round ${e.round}`,
    enforceWould(e.intervention.enforce),
    `telemetry ${e.intervention.telemetry}`,
  ];
  if (e.confidence !== null) bits.push(`confidence ${fmtConfidence(e.confidence)}`);
  if (e.strike) bits.push(`strikes ${fmtStrike(e.strike, true)}`);
  if (e.after_stop) bits.push('after a stop (the round would not have happened)');
  return bits.join('; ') + '.';
}

export function renderSarif(report: LedgerReport, o: ReportOptions): string {
  const pairs = new Map<string, [string, string]>();
  for (const [d, kinds] of Object.entries(KNOWN)) for (const k of Object.keys(kinds)) pairs.set(ruleId(d, k), [d, k]);
  for (const s of report.sessions) for (const e of s.entries) pairs.set(ruleId(e.detector, e.kind), [e.detector, e.kind]);
  const ids = [...pairs.keys()].sort();
  const index = new Map(ids.map((id, i) => [id, i]));
  const rules = ids.map((id) => {
    const [d, k] = pairs.get(id)!;
    const text = KNOWN[d]?.[k] ?? `${sanitize(d)} detector: ${sanitize(k)}.`;
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

  const results = report.sessions.flatMap((s) =>
    s.entries.map((e) => {
      const id = ruleId(e.detector, e.kind);
      const physicalLocation: Record<string, unknown> = {
        artifactLocation: { uri: artifactUri(s.path, o.cwd) },
      };
      if (e.line !== null && e.line >= 1) physicalLocation['region'] = { startLine: e.line };
      return {
        ruleId: id,
        ruleIndex: index.get(id)!,
        level: LEVEL[e.intervention.enforce],
        message: { text: message(s, e) },
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
        },
      };
    }),
  );

  const notifications = report.inputs.flatMap((i) => {
    const loc = [{ physicalLocation: { artifactLocation: { uri: artifactUri(i.path, o.cwd) } } }];
    const out: Record<string, unknown>[] = [];
    if (i.error !== undefined) out.push({ level: 'error', message: { text: sanitize(i.error) }, locations: loc });
    for (const k of i.skipped) {
      out.push({
        level: 'warning',
        message: { text: `skipped: ${sanitize(k.reason)}` },
        locations: k.line !== null && k.line >= 1
          ? [{ physicalLocation: { ...loc[0]!.physicalLocation, region: { startLine: k.line } } }]
          : loc,
      });
    }
    return out;
  });

  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'loopledger',
            version: report.tool.version,
            rules,
          },
        },
        invocations: [{ executionSuccessful: true, toolExecutionNotifications: notifications }],
        results,
      },
    ],
  };
  return escapeJsonText(JSON.stringify(log, null, 2)) + '\n';
}
