// An OpenHands V1 conversation folder: base_state.json and each event file, in order, as records
// of one input (`lines` counts the files). Its skips name the file, as there are no line numbers.

import type { InputSummary } from '../input.js';
import type { FormatName } from '../../model/transcript.js';
import { conversationFiles } from '../../read/conversation-dir.js';
import { sanitize } from '../../sanitize.js';
import { adapterFor } from '../index.js';
import type { FormatAdapter } from '../types.js';
import { type AdapterRun, SinkFailure } from './adapter-run.js';
import { describeScalar, isJsonContainer, messageOf, parseJson } from './json.js';
import type { SkipTally } from './skips.js';

/**
 * Open the adapter an input of a known kind (a conversation folder, an agent's database) is read
 * with: the one `--input-format` forces, else `format`. False, with the summary's error set or the
 * run closed, when it cannot start.
 */
export function openChosen(summary: InputSummary, run: AdapterRun, forced: FormatName | 'auto' | undefined, format: FormatName, adapters: readonly FormatAdapter[]): boolean {
  let adapter: FormatAdapter;
  try {
    adapter = adapterFor(forced && forced !== 'auto' ? forced : format, adapters);
  } catch (err) {
    summary.error = sanitize(messageOf(err), { max: 500 });
    return false;
  }
  if (run.open(adapter)) return true;
  run.close();
  return false;
}

export async function readConversation(
  input: string,
  summary: InputSummary,
  run: AdapterRun,
  skips: SkipTally,
  forced: FormatName | 'auto' | undefined,
  adapters: readonly FormatAdapter[],
): Promise<InputSummary> {
  if (!openChosen(summary, run, forced, 'openhands', adapters)) return summary;
  let files = 0;
  try {
    for await (const file of conversationFiles(input)) {
      files += 1;
      if ('error' in file) {
        skips.skip(null, `${file.name}: ${file.error}`);
        continue;
      }
      const parsed = parseJson(file.text.replace(/^\uFEFF/, ''));
      if (!parsed.ok) skips.skip(null, `${file.name}: malformed JSON: ${parsed.message}`);
      else if (!isJsonContainer(parsed.value)) skips.skip(null, `${file.name}: not a record: the file holds ${describeScalar(parsed.value)}`);
      else run.push(parsed.value, null);
    }
  } catch (err) {
    if (err instanceof SinkFailure) throw err;
    summary.error = sanitize(`cannot list the conversation's events: ${messageOf(err)}`, { max: 500 });
  }
  summary.lines = files;
  run.close();
  return summary;
}
