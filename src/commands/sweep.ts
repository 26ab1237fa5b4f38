// `loopledger sweep`: one row per value (or grid point) of what would have fired, steered and
// stopped, with precision, recall and false-positive rate when labels were given.

import type { SweepValue } from '../calibrate/param.js';
import type { SweepPoint, SweepResult } from '../calibrate/sweep.js';
import { preventedCell, sweepHtml } from '../report/html/sweep.js';
import { painter, renderTable, type Column } from '../config/text.js';
import { sanitize } from '../sanitize.js';
import { UsageError } from '../errors.js';
import type { SweepFormat } from '../vocabulary.js';

export interface RenderSweepOptions {
  format: SweepFormat;
  color: boolean;
  /** The lines that apply the recommendation (default true; an automatic sweep says it once, at its end). */
  apply?: boolean;
}

function value(v: SweepValue | undefined): string {
  return v === null || v === undefined ? 'none' : String(v);
}

/** Three decimals: an FPR bound of 0.01 must be readable off the table. */
function rate(v: number | null | undefined): string {
  return v === null || v === undefined ? '-' : v.toFixed(3);
}

function pair(c: { sessions: number; rounds: number }): string {
  return `${c.sessions} / ${c.rounds}`;
}

function assignment(values: Record<string, SweepValue>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(' ');
}

/**
 * How to keep the recommended value: the `--set` flags exactly as `config --write` and every command
 * take them, and the same values as a config file's JSON (flat dotted keys, as `config --write` adds them).
 */
function applyLines(values: Record<string, SweepValue>): string[] {
  const sets = Object.entries(values).map(([k, v]) => `--set ${k}=${value(v)}`);
  const snippet = JSON.stringify(Object.fromEntries(Object.entries(values)));
  return [
    `apply: ${sanitize(sets.join(' '))}`,
    `  keep it: loopledger config --write loopledger.json ${sanitize(sets.join(' '))}`,
    `  or in a config file (--config): ${sanitize(snippet)}`,
  ];
}

export function renderSweep(result: SweepResult, options: RenderSweepOptions): string {
  if (options.format === 'html') return sweepHtml(result);
  if (options.format === 'json') {
    return `${JSON.stringify({ schema: 'loopledger/sweep/1', ...result }, null, 2)}\n`;
  }
  const paint = painter(options.color);
  const labeled = result.labels !== null;
  const keys = result.params.map((p) => p.key);
  const columns: Column[] = [
    ...keys.map((k) => ({ header: sanitize(k), align: 'right' as const })),
    { header: 'FIRED', align: 'right' },
    { header: 'STEERED', align: 'right' },
    { header: 'STOPPED', align: 'right' },
    { header: 'SAVED', align: 'right' },
    { header: 'CUT', align: 'right' },
  ];
  if (labeled) {
    columns.push(
      { header: 'TP', align: 'right' },
      { header: 'FP', align: 'right' },
      { header: 'TN', align: 'right' },
      { header: 'FN', align: 'right' },
      { header: 'PRECISION', align: 'right' },
      { header: 'RECALL', align: 'right' },
      { header: 'FPR', align: 'right' },
    );
  }
  const interrupted = result.interrupts !== undefined;
  if (interrupted) columns.push({ header: 'INTERRUPTED', align: 'right' }, { header: 'EARLIER', align: 'right' });
  columns.push({ header: '' });

  const best = result.recommended?.index ?? -1;
  const maxFpr = result.max_fpr;
  const rows = result.points.map((p: SweepPoint, i) => {
    const row = [...keys.map((k) => value(p.values[k])), pair(p.fired), pair(p.steered), pair(p.stopped), preventedCell(p.saved), preventedCell(p.cut)];
    if (labeled) {
      const m = p.metrics;
      row.push(
        String(m?.tp ?? '-'),
        String(m?.fp ?? '-'),
        String(m?.tn ?? '-'),
        String(m?.fn ?? '-'),
        rate(m?.precision),
        rate(m?.recall),
        rate(m?.fpr),
      );
    }
    if (interrupted) {
      const x = p.interrupts;
      row.push(x ? `${x.stopped_first} / ${x.loops}` : '-', x ? String(x.rounds_earlier) : '-');
    }
    row.push(i === best ? '<- recommended' : '');
    return row;
  });
  const fprColumn = labeled ? columns.length - 2 : -1;
  const sessions = result.points[0]?.sessions ?? 0;
  const rounds = result.points[0]?.rounds ?? 0;

  const lines: string[] = [];
  lines.push(
    `sweep of ${keys.map((k) => sanitize(k)).join(' × ')}: ${result.points.length} point${result.points.length === 1 ? '' : 's'}, ` +
      `${sessions} session${sessions === 1 ? '' : 's'}, ${rounds} round${rounds === 1 ? '' : 's'}`,
  );
  lines.push('FIRED: sessions / rounds with any entry; STEERED, STOPPED: sessions / rounds under enforce');
  lines.push('SAVED: rounds the stops prevent while the agent is still in the loop; CUT: rounds after it had recovered (new work a stop breaks)');
  if (labeled) lines.push(`a labeled session or file counts as flagged when it reaches ${result.positive} under enforce`);
  if (interrupted) {
    lines.push(`INTERRUPTED: interrupted loops Enforce would have reached ${result.positive} in first / all; EARLIER: rounds before the user, summed`);
  }
  lines.push('');
  let out = `${lines.join('\n')}\n`;
  out += renderTable(
    columns,
    rows,
    (r, c, text) => {
      if (r === best) return paint.green.bold(text);
      if (c === fprColumn && maxFpr !== null) {
        const fpr = result.points[r]?.metrics?.fpr;
        if (fpr !== null && fpr !== undefined && fpr > maxFpr) return paint.red(text);
      }
      return text;
    },
    (h) => paint.bold(h),
  );

  const tail: string[] = [];
  if (result.labels) {
    const unlabeled = result.points[0]?.metrics?.unlabeled_sessions ?? 0;
    tail.push(
      `labels: ${result.labels.loop} loop, ${result.labels.clean} clean; ${unlabeled} unlabeled session${unlabeled === 1 ? '' : 's'} counted above but not in the metrics`,
    );
    if (result.labels.unmatched.length > 0) {
      tail.push(`labels that matched no session: ${result.labels.unmatched.map((k) => sanitize(k)).join(', ')}`);
    }
  }
  if (result.interrupts) {
    const x = result.interrupts;
    tail.push(
      `interrupts: ${x.after_repeat} right after a repeat (weak loop labels${x.hand_wins > 0 ? `; ${x.hand_wins} of their sessions hand-labelled, the hand label wins` : ''}), ` +
        `${x.no_repeat} with no repeat before them (no label)`,
    );
  }
  if (result.recommended) {
    const r = result.recommended;
    tail.push(
      paint.bold(`recommended: ${sanitize(assignment(r.values))}`) +
        ` (recall ${rate(r.recall)}, FPR ${rate(r.fpr)} <= ${maxFpr}, precision ${rate(r.precision)})`,
    );
    if (options.apply !== false) tail.push(...applyLines(r.values));
  } else if (result.note && (labeled || maxFpr !== null)) {
    tail.push(`no recommendation: ${result.note}`);
  }
  if (tail.length > 0) out += `\n${tail.join('\n')}\n`;
  return out;
}

/** An automatic sweep: the keys swept one by one, and the one change they add up to (empty: none). */
export interface AutoSweep {
  keys: string[];
  results: SweepResult[];
  change: Record<string, SweepValue>;
  maxFpr: number;
}

/** The command that keeps the change, or the sentence that says there is none: always the last line. */
function autoConclusion(auto: AutoSweep): string {
  const sets = Object.entries(auto.change).map(([k, v]) => `--set ${k}=${value(v)}`);
  if (sets.length > 0) return sanitize(`loopledger config --write loopledger.json ${sets.join(' ')}`);
  if (auto.keys.length === 0) return 'No finding in these sessions moves a threshold: the configuration in force already fits these labels.';
  return sanitize(`The configuration in force already fits these labels: no value of ${auto.keys.join(', ')} flags more labeled loops within a false-positive rate of ${auto.maxFpr}.`);
}

export function renderAutoSweep(auto: AutoSweep, options: RenderSweepOptions): string {
  if (options.format === 'json') {
    const write = Object.keys(auto.change).length > 0 ? autoConclusion(auto) : null;
    return `${JSON.stringify({ schema: 'loopledger/sweep-auto/1', max_fpr: auto.maxFpr, keys: auto.keys, change: auto.change, write, conclusion: autoConclusion(auto), sweeps: auto.results }, null, 2)}\n`;
  }
  if (options.format === 'html') throw new UsageError('sweep --format html draws one sweep: name its key with --param');
  const paint = painter(options.color);
  const parts = auto.results.map((r) => renderSweep(r, { ...options, apply: false }));
  const head = `swept the keys that matter for the findings here, one at a time, each around its value in force (false-positive budget ${auto.maxFpr}; --max-fpr to change it)`;
  const changed = Object.entries(auto.change);
  const lines = changed.length > 0 ? [`to apply (${changed.map(([k, v]) => `${k}=${value(v)}`).join(', ')}), keep it in ./loopledger.json, which every command reads:`] : [];
  return `${head}\n\n${parts.join('\n')}\n${lines.map((l) => `${sanitize(l)}\n`).join('')}${paint.bold(autoConclusion(auto))}\n`;
}
