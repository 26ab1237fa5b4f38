// `loopledger formats`: what we read and how a file is recognized.

import { ADAPTERS } from '../formats/index.js';
import type { ListingFormat } from '../vocabulary.js';

export function renderFormats(format: ListingFormat): string {
  const rows = ADAPTERS.map((a) => ({ name: a.name, description: a.description, detection: a.detection }));
  if (format === 'json') return JSON.stringify({ formats: rows }, null, 2) + '\n';
  const width = Math.max(...rows.map((r) => r.name.length));
  const lines = rows.flatMap((r) => [
    `${r.name.padEnd(width)}  ${r.description}`,
    `${' '.repeat(width)}  detected by: ${r.detection}`,
  ]);
  return [
    ...lines,
    '',
    'Auto-detection reads the first lines of each file (or the whole document for a pretty-printed JSON file);',
    '--input-format NAME forces one. An OpenHands conversation folder (base_state.json beside events/) is one input, read as openhands.',
    '',
  ].join('\n');
}
