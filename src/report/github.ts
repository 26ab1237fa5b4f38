// GitHub Actions workflow commands: `::error file=…,line=…,title=…::message` per entry (stop ->
// error, steer -> warning, noted -> notice). GitHub shows at most 10 annotations of each level
// per step, so more would be lost silently: we write 10 per level and summarize the rest in one
// plain line. Entries that enforce would not act on are not annotated. Only the annotations written
// are ever built; the rest are counted, so the output is bounded whatever the ledger's size.

import type { LedgerReport, SessionLedger } from '../ledger/types.js';
import type { EnforceLevel } from '../vocabulary.js';
import { type ReportOptions, whole } from './options.js';
import { relativePath } from './paths.js';
import { sanitize } from '../sanitize.js';
import { savedPhrase, totalsPhrases } from './money.js';
import { enforceWould, fmtConfidence, plural, strikePhrase } from './text.js';

export const ANNOTATIONS_PER_LEVEL = 10;

type Command = 'error' | 'warning' | 'notice';
const COMMAND: Partial<Record<EnforceLevel, Command>> = { stop: 'error', steer: 'warning', noted: 'notice' };

/** Command data: `%`, CR and LF must be percent-encoded (GitHub's escapeData). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Command properties additionally encode `:` and `,` (GitHub's escapeProperty). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

interface Annotation {
  command: Command;
  file?: string;
  line?: number;
  title: string;
  message: string;
}

function format(a: Annotation): string {
  const props: string[] = [];
  if (a.file !== undefined) props.push(`file=${escapeProperty(a.file)}`);
  if (a.line !== undefined) props.push(`line=${a.line}`);
  props.push(`title=${escapeProperty(a.title)}`);
  // sanitize() first: no control character reaches the log, and no raw newline can start a
  // second, forged command.
  return `::${a.command} ${props.join(',')}::${escapeData(sanitize(a.message))}`;
}

export function* githubChunks(report: LedgerReport, o: ReportOptions): Generator<string> {
  const left: Record<Command, number> = { error: 0, warning: 0, notice: 0 };
  const shown: Record<Command, number> = { error: 0, warning: 0, notice: 0 };
  /** Room for one more of this level? Otherwise it is counted. */
  const room = (command: Command) => {
    if (shown[command] < ANNOTATIONS_PER_LEVEL) {
      shown[command] += 1;
      return true;
    }
    left[command] += 1;
    return false;
  };
  for (const i of report.inputs) {
    if (i.error !== undefined && room('error')) {
      yield format({
        command: 'error',
        file: sanitize(relativePath(i.path, o.cwd)),
        title: 'loopledger: input not analyzed',
        message: i.error,
      }) + '\n';
    }
  }
  for (const listed of report.sessions) {
    let file: string | undefined;
    // Whole only when one of its entries is annotated.
    let s: SessionLedger | undefined;
    for (const [i, thin] of listed.entries.entries()) {
      const command = COMMAND[thin.intervention.enforce];
      if (!command || !room(command)) continue;
      s ??= whole(o, listed);
      const e = s.entries[i]!;
      file ??= sanitize(relativePath(s.path, o.cwd));
      const bits = [`session ${s.id}`, `turn ${e.turn} ${e.run ? `rounds ${e.round}-${e.run.last_round} (${e.run.count} rounds)` : `round ${e.round}`}`, enforceWould(e.intervention.enforce)];
      if (e.confidence !== null) bits.push(`confidence ${fmtConfidence(e.confidence)}`);
      if (e.strike) bits.push(strikePhrase(e.strike, e.kind));
      const saved = e.intervention.enforce === 'stop' ? savedPhrase(s) : null;
      if (saved !== null) bits.push(`${saved} in this session (list price)`);
      yield format({
        command,
        file,
        ...(e.line !== null && e.line >= 1 ? { line: e.line } : {}),
        title: `loopledger ${sanitize(e.detector)}/${sanitize(e.kind)}`,
        message: bits.join(', '),
      }) + '\n';
    }
  }
  const rest = (['error', 'warning', 'notice'] as const)
    .filter((c) => left[c] > 0)
    .map((c) => plural(left[c], c));
  if (rest.length > 0) {
    yield `loopledger: ${rest.join(', ')} more not annotated (GitHub shows ${ANNOTATIONS_PER_LEVEL} per level); see the full ledger with --format table or json\n`;
  }
  const money = totalsPhrases(report);
  if (money.length) yield `loopledger: ${money.join('; ')} (list-price estimates)\n`;
  const sm = report.summary;
  yield (
    `loopledger: ${plural(sm.sessions, 'session')}, ${plural(sm.entries, 'finding')}; ` +
    `enforce would stop ${sm.enforce.sessions_stopped} and steer ${sm.enforce.sessions_steered}; ` +
    plural(sm.skipped_lines, 'skipped line') +
    '\n'
  );
}
