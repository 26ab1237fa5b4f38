// Measures a loopledger build on the wild corpus (issue 54, items 1 and 6): runs it over the rebuilt files
// of the manifest and reports, per part, the sessions with tool calls, false steers/stops per 1,000 of them
// (a steer or stop under Enforce outside every labelled window), recall per agent and per shape (a labelled
// loop window reached by a steer or stop, or cut by an earlier stop in its turn: under Enforce it never
// ran), and the stops that were not warranted (a stop outside every window, or inside one labelled `steer`
// or `debatable`). Windows labelled `debatable` count neither way.
//
//   node bench/wild/measure.mjs [--loopledger /path/to/bin/loopledger.js] [--part tune|holdout|all]
//                               [--data DIR] [--json] [--list] [--set KEY=VALUE …]
//
// --data defaults to bench/wild/data, else /work/wild-data (rebuild.mjs fills either). --list prints every
// false alarm and every missed window, to read them.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DATA, dataPath, HERE, option, readManifest } from './lib.mjs';

const bin = resolve(option('--loopledger', join(HERE, '..', '..', 'bin', 'loopledger.js')));
const part = option('--part', 'all');
const data = resolve(option('--data', existsSync(DATA) ? DATA : '/work/wild-data'));
const asJson = process.argv.includes('--json');
/** `--set KEY=VALUE`, repeatable: passed to loopledger, to sweep a threshold on `tune` before measuring `holdout`. */
const sets = process.argv.flatMap((a, i) => (a === '--set' && process.argv[i + 1] ? ['--set', process.argv[i + 1]] : []));
const list = process.argv.includes('--list');
if (!['tune', 'holdout', 'all'].includes(part)) {
  console.error(`measure: --part is tune, holdout or all, not ${part}`);
  process.exit(2);
}

const rows = readManifest().filter((r) => r.has_tool_calls && (part === 'all' || r.part === part));
const missing = rows.filter((r) => !existsSync(dataPath(r, data)));
const present = rows.filter((r) => existsSync(dataPath(r, data)));

// The defaults, whatever configuration the person running this has: no config file is found from here.
const neutral = mkdtempSync(join(tmpdir(), 'wild-measure-'));

/** loopledger's steer and stop entries per file, from its JSON, in chunks so no command line is too long. */
function enforceEntries(files) {
  const byPath = new Map();
  for (let i = 0; i < files.length; i += 150) {
    const chunk = files.slice(i, i + 150);
    let out;
    try {
      out = execFileSync(process.execPath, [bin, 'analyze', '--format', 'json', ...sets, ...chunk], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'], cwd: neutral, env: { ...process.env, LOOPLEDGER_CONFIG: '', XDG_CONFIG_HOME: neutral, HOME: neutral } });
    } catch (error) {
      out = String(error.stdout ?? ''); // exit 1 means findings reached the fail-on level; the JSON is whole
      if (!out) throw new Error(`measure: ${bin} failed: ${String(error.stderr ?? error.message).slice(0, 500)}`);
    }
    const ledger = JSON.parse(out);
    for (const session of ledger.sessions) {
      // A finding after Enforce stopped its turn is kept too: a window holding only those was cut by that stop.
      const entries = session.entries.filter((e) => e.intervention?.enforce === 'steer' || e.intervention?.enforce === 'stop' || e.after_stop);
      byPath.set(session.path, [...(byPath.get(session.path) ?? []), ...entries.map((e) => ({ ...e, session: session.id }))]);
    }
  }
  return byPath;
}

/** An entry lies in a window by its source line when both have one (stable across readers), else by round. */
function inWindow(entry, w) {
  if (entry.line != null && w.from_line != null) return entry.line >= w.from_line && entry.line <= w.to_line;
  return entry.round >= w.from_round && entry.round <= w.to_round;
}

const entries = enforceEntries(present.map((r) => dataPath(r, data)));
const parts = part === 'all' ? ['tune', 'holdout'] : [part];
const report = {};
const listing = [];
for (const p of parts) {
  const inPart = present.filter((r) => r.part === p);
  const result = { sessions_with_tool_calls: inPart.length, unread: inPart.filter((r) => r.label === 'unread').length, false_alarm_sessions: 0, false_alarms: 0, false_stops: 0, stops_unwarranted: 0, windows: 0, reached: 0, cut_by_stop: 0, debatable_windows: 0, debatable_reached: 0, per_agent: {}, per_shape: {} };
  for (const row of inPart) {
    const all = entries.get(dataPath(row, data)) ?? [];
    const found = all.filter((e) => !e.after_stop);
    const windows = row.windows ?? [];
    const outside = found.filter((e) => !windows.some((w) => inWindow(e, w)));
    if (outside.length > 0) {
      result.false_alarm_sessions++;
      listing.push(`false  ${row.agent} ${row.repo} ${row.key} ${outside.map((e) => `r${e.round}:${e.kind}:${e.intervention.enforce}`).join(' ')}`);
    }
    result.false_alarms += outside.length;
    result.false_stops += outside.filter((e) => e.intervention.enforce === 'stop').length;
    for (const w of windows) {
      const inside = found.filter((e) => inWindow(e, w));
      const stopsInside = inside.filter((e) => e.intervention.enforce === 'stop');
      if (w.level !== 'stop' && stopsInside.length > 0) {
        result.stops_unwarranted++;
        listing.push(`stop   ${row.agent} ${row.repo} ${row.key} r${w.from_round}-${w.to_round} ${w.level} ${w.shape} ${stopsInside.map((e) => `r${e.round}:${e.kind}`).join(' ')}`);
      }
      // A loop that runs only after Enforce ended its turn would not have happened under Enforce: the earlier stop
      // reached it. Counted as reached, and apart (cut_by_stop), so the figure says how many were reached that way.
      const cut = inside.length === 0 && all.some((e) => e.after_stop && inWindow(e, w));
      const hit = inside.length > 0 || cut;
      // A debatable window is neither a loop to reach nor clean work: a finding in it counts either way.
      if (w.level === 'debatable') {
        result.debatable_windows++;
        if (hit) result.debatable_reached++;
        continue;
      }
      result.windows++;
      if (hit) result.reached++;
      if (cut) {
        result.cut_by_stop++;
        listing.push(`cut    ${row.agent} ${row.repo} ${row.key} r${w.from_round}-${w.to_round} ${w.shape}: after Enforce's stop in the same turn`);
      }
      for (const [table, key] of [[result.per_agent, row.agent], [result.per_shape, w.shape]]) {
        table[key] ??= { windows: 0, reached: 0 };
        table[key].windows++;
        if (hit) table[key].reached++;
      }
      if (!hit) listing.push(`missed ${row.agent} ${row.repo} ${row.key} r${w.from_round}-${w.to_round} ${w.shape}`);
    }
    result.stops_unwarranted += outside.filter((e) => e.intervention.enforce === 'stop').length;
  }
  result.false_alarm_sessions_per_1000 = +((1000 * result.false_alarm_sessions) / Math.max(1, result.sessions_with_tool_calls)).toFixed(1);
  result.recall = result.windows ? +(result.reached / result.windows).toFixed(3) : null;
  report[p] = result;
}

if (asJson) console.log(JSON.stringify({ loopledger: bin, data, missing: missing.length, parts: report }, null, 1));
else {
  console.log(`loopledger ${bin}\ndata ${data}${missing.length ? ` (${missing.length} files missing: run rebuild.mjs)` : ''}`);
  for (const [p, r] of Object.entries(report)) {
    console.log(`\n${p}: ${r.sessions_with_tool_calls} sessions with tool calls (${r.unread} not read by hand)`);
    console.log(`  false steers/stops: ${r.false_alarm_sessions} sessions = ${r.false_alarm_sessions_per_1000} per 1,000 (${r.false_alarms} findings, ${r.false_stops} of them stops)`);
    console.log(`  stops not warranted: ${r.stops_unwarranted}`);
    console.log(`  recall: ${r.reached}/${r.windows} labelled loop windows reached by a steer or stop (${r.cut_by_stop} of them cut by an earlier stop in their turn; debatable windows: ${r.debatable_reached}/${r.debatable_windows} reached)`);
    for (const [k, v] of Object.entries(r.per_agent)) console.log(`    agent ${k}: ${v.reached}/${v.windows}`);
    for (const [k, v] of Object.entries(r.per_shape)) console.log(`    shape ${k}: ${v.reached}/${v.windows}`);
  }
  if (list) console.log(`\n${listing.join('\n')}`);
}
