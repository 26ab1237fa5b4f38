// Which adapter reads a file: the forced one, or the best-ranked one for the records probed (or
// for the whole file read as one document, when that reading scores higher). A loopledger report
// is refused by name; anything else unknown gets a few words on what it looked like (no content).

import type { InputSummary } from '../input.js';
import type { FormatName } from '../../model/transcript.js';
import { adapterFor, rankFormats, safeDetect } from '../index.js';
import type { FormatAdapter, Probe } from '../types.js';
import { describeScalar, messageOf } from './json.js';

export interface Choice {
  adapter: FormatAdapter;
  /** The alternative reading (one whole document) won over the line-by-line one. */
  alternative: boolean;
}

/**
 * The adapter for a file, or null: then `summary.error` says why when the reason is known (a
 * forced name that does not exist, a loopledger report), and unrecognized() words the rest.
 */
export function pickAdapter(
  summary: InputSummary,
  probe: Probe,
  alternative: Probe | null,
  forced: FormatName | 'auto' | undefined,
  adapters: readonly FormatAdapter[],
): Choice | null {
  if (forced && forced !== 'auto') {
    let adapter: FormatAdapter;
    try {
      adapter = adapterFor(forced, adapters);
    } catch (err) {
      summary.error = messageOf(err);
      return null;
    }
    const prefersAlternative = alternative !== null && safeDetect(adapter, alternative) > safeDetect(adapter, probe);
    return { adapter, alternative: prefersAlternative };
  }
  // loopledger's own output (a report saved beside the transcripts) is not read back as one.
  if (isLoopledgerOutput(probe)) {
    summary.error = 'a loopledger report, not a transcript';
    summary.not_transcript = 'loopledger-report';
    return null;
  }
  const best = rankFormats(probe, adapters);
  const other = alternative ? rankFormats(alternative, adapters) : null;
  // Ties go to the line-by-line reading, which keeps line numbers.
  if (other && other.score > (best?.score ?? 0)) return { adapter: other.adapter, alternative: true };
  return best ? { adapter: best.adapter, alternative: false } : null;
}

/** The error for a file no adapter took: the one already given, or "not a recognized transcript format". */
export function unrecognized(summary: InputSummary, probe: Probe, adapters: readonly FormatAdapter[]): string {
  if (summary.error) return summary.error;
  summary.not_transcript = 'unrecognized';
  const names = adapters.map((a) => a.name).join(', ');
  return `not a recognized transcript format: ${describeProbe(probe)} (known: ${names}; --input-format forces one)`;
}

/**
 * A report loopledger wrote: `--format json` (and the sweep, config and stores JSON, all with
 * `schema: "loopledger/…"`), `--format sarif` (its driver is loopledger) or `--format ndjson`
 * (entries with a session, a detector and an intervention). Not `loopledger-canonical`, which is
 * a transcript format.
 */
function isLoopledgerOutput(probe: Probe): boolean {
  const first = probe.mode === 'document' ? probe.value : probe.records[0];
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return false;
  const r = first as Record<string, unknown>;
  if (typeof r['schema'] === 'string' && r['schema'].startsWith('loopledger/')) return true;
  if (Array.isArray(r['runs']) && typeof r['$schema'] === 'string' && /sarif/i.test(r['$schema'])) {
    const driver = (r['runs'][0] as { tool?: { driver?: { name?: unknown } } } | undefined)?.tool?.driver;
    return driver?.name === 'loopledger';
  }
  const intervention = r['intervention'];
  return (
    typeof r['session'] === 'string' &&
    (r['detector'] === 'tool_batch' || r['detector'] === 'output' || r['detector'] === 'thinking') &&
    typeof intervention === 'object' && intervention !== null && 'enforce' in intervention
  );
}

/** A few words on what the file looked like, for the "not recognized" message (no content). */
function describeProbe(probe: Probe): string {
  if (probe.mode === 'jsonl') return `JSON lines, the first record ${describeValue(probe.records[0])}`;
  return `a JSON document that ${describeValue(probe.value)}`;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'is an empty array' : `is an array of ${value.length}`;
  if (typeof value !== 'object' || value === null) return `is ${describeScalar(value)}`;
  const keys = Object.keys(value);
  if (keys.length === 0) return 'is an object with no keys';
  const shown = keys.slice(0, 6).map((k) => JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k));
  return `has keys ${shown.join(', ')}${keys.length > 6 ? ', …' : ''}`;
}
