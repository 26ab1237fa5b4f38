// `loopledger formats`: what we read and how a file is recognized, wrapped to the terminal.

import { Option, type OptionValues } from 'commander';
import { EXIT_OK } from '../errors.js';
import { ADAPTERS } from '../formats/index.js';
import { PRODUCERS } from '../formats/otel/producers.js';
import { wrap } from '../report/text.js';
import { LISTING_FORMATS, type ListingFormat } from '../vocabulary.js';
import { terminalWidth, writePayload } from './common.js';
import { chosen, flag, type RegisterCommand } from './flags.js';

export const registerFormatsCommand: RegisterCommand = (program, io, setExit) => {
  program
    .command('formats')
    .description('the supported input formats and how each is detected')
    .addOption(new Option('--format <format>', 'output format').choices(LISTING_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .action(async (raw: OptionValues) => {
      const format = flag(raw, 'json') ? 'json' : chosen(raw, 'format', LISTING_FORMATS);
      await writePayload(io, renderFormats(format, terminalWidth(io)), undefined);
      setExit(EXIT_OK);
    });
};

// Below this many columns beside the names, each name gets a line of its own.
const MIN_TEXT_COLUMNS = 30;

/** `width`: the terminal's columns (the table is wrapped to them; default 120, as elsewhere). */
function renderFormats(format: ListingFormat, width = 120): string {
  const rows = ADAPTERS.map((a) => ({ name: a.name, description: a.description, detection: a.detection }));
  const producers = PRODUCERS.map((p) => ({ name: p.name, verified: p.verified, detection: p.detection, unrecorded: [...p.unrecorded] }));
  if (format === 'json') return JSON.stringify({ formats: rows, otel_producers: producers }, null, 2) + '\n';
  const columns = Math.max(20, Math.floor(width) || 120);
  const nameWidth = Math.max(...rows.map((r) => r.name.length));
  const beside = columns - nameWidth - 2 >= MIN_TEXT_COLUMNS;
  const textWidth = beside ? columns - nameWidth - 2 : columns - 4;
  const pad = ' '.repeat(beside ? nameWidth + 2 : 4);
  const lines = rows.flatMap((r) => {
    const text = [...wrap(r.description, textWidth, 0), ...wrap(`detected by: ${r.detection}`, textWidth, 2)];
    if (!beside) return [r.name, ...text.map((l) => pad + l)];
    return text.map((l, i) => (i === 0 ? `${r.name.padEnd(nameWidth)}  ${l}` : pad + l).trimEnd());
  });
  // Who wrote a trace decides what it holds: each producer with the version checked and what it lacks.
  const producerLines = producers.flatMap((p) => [
    ...wrap(`  ${p.name}: verified with ${p.verified}`, columns, 4),
    ...wrap(`    detected by: ${p.detection}`, columns, 6),
    ...wrap(`    does not record: ${p.unrecorded.join('; ')}`, columns, 6),
  ]);
  const notes = [
    'Auto-detection reads the first lines of each file (or the whole document for a pretty-printed JSON file); --input-format NAME forces one.',
    'An OpenHands conversation folder (base_state.json beside events/) is one input, read as openhands.',
    'A run whose traces and logs are in separate files is one input when concatenated: cat logs.jsonl traces.jsonl | loopledger analyze -',
  ];
  return [...lines, '', 'Trace producers (format otel):', ...producerLines, '', ...notes.flatMap((n) => wrap(n, columns, 0)), ''].join('\n');
}
