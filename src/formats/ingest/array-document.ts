// A large file that is one JSON array, read an element at a time (read/array-elements.ts) when
// the adapter that takes it reads each element on its own (FormatAdapter.arrayElements: a ChatGPT
// export). The first elements decide the format, as a document's whole value would; for any other
// adapter, or a file that is no array after all, the caller reads the file as before.

import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { InputSummary } from '../input.js';
import { type ArrayElement, ArrayElements } from '../../read/array-elements.js';
import { hasTooManyValues, TOO_MANY_VALUES_REASON } from '../../read/json-values.js';
import { DEFAULT_MAX_LINE_LENGTH } from '../../read/lines.js';
import { sanitize } from '../../sanitize.js';
import type { FormatAdapter, Probe } from '../types.js';
import type { AdapterRun } from './adapter-run.js';
import { pickAdapter } from './choose.js';
import { messageOf, parseJson } from './json.js';
import { type IngestOptions, PROBE_HELD_CHARS, PROBE_RECORDS, TooLargeToHoldHere } from './options.js';
import type { SkipTally } from './skips.js';

/**
 * From this size a file that opens with `[` is read an element at a time. Below it, parsing the
 * document whole costs a few times its size, little; above it that grows without bound, and past
 * the line bound (128 MB) a one-line export was not read at all.
 */
const ARRAY_STREAM_BYTES = 32 * 1024 * 1024;

/** Whether `path` is large enough and opens with `[` (after blanks and a BOM). `knownSize`: its size, if just stat'ed. */
export async function worthStreamingArray(path: string, from = ARRAY_STREAM_BYTES, knownSize?: number): Promise<boolean> {
  if (knownSize !== undefined && knownSize < from) return false;
  let handle;
  try {
    // Every file passes here: a stat alone for the many small ones, the file opened only past the size.
    if ((knownSize ?? (await stat(path)).size) < from) return false;
    handle = await open(path, 'r');
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    while (i < bytesRead && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d)) i++;
    return i < bytesRead && head[i] === 0x5b;
  } catch {
    // Unreadable here: the line reader says why, as for any file.
    return false;
  } finally {
    await handle?.close();
  }
}

type Held = { value: unknown; line: number } | { skip: string; line: number };

/**
 * Reads `path` element by element into `run`. False: not for this reading (no element, or an
 * adapter that needs the whole array); nothing was handed to `run` and the summary is as it was.
 */
export async function readArrayDocument(
  path: string,
  summary: InputSummary,
  run: AdapterRun,
  skips: SkipTally,
  options: IngestOptions,
  adapters: readonly FormatAdapter[],
): Promise<boolean> {
  const limit = Math.min(options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH, options.maxHeldChars ?? Infinity);
  const size = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MB` : `${limit} characters`;
  const held = options.maxHeldChars;
  const splitter = new ArrayElements(
    limit,
    `array element too long (over ${size}): skipped unread`,
    held === undefined ? undefined : (line) => {
      throw new TooLargeToHoldHere(line, held);
    },
  );
  let probing: Held[] | null = [];
  let probedChars = 0;
  let probedRecords = 0;
  let declined = false;
  /** The adapter failed to start (the summary says why): nothing more is read. */
  let stopped = false;

  /** The format, from the elements probed; false when this reading is not the one. */
  const decide = (): boolean => {
    const items = probing!;
    probing = null;
    const records = items.filter((h): h is { value: unknown; line: number } => 'value' in h).map((h) => h.value);
    if (records.length === 0) return false;
    const before = { error: summary.error, not_transcript: summary.not_transcript };
    const probe: Probe = { mode: 'document', fileName: run.fileName, value: records };
    const picked = pickAdapter(summary, probe, null, options.inputFormat, adapters);
    if (picked === null || picked.adapter.arrayElements !== true) {
      summary.error = before.error;
      summary.not_transcript = before.not_transcript;
      return false;
    }
    if (!run.open(picked.adapter)) {
      stopped = true;
      return true;
    }
    for (const h of items) {
      if ('skip' in h) skips.skip(h.line, h.skip);
      else run.push(h.value, h.line);
    }
    return true;
  };

  const take = (el: ArrayElement): void => {
    if (stopped) return;
    let item: Held;
    if ('skip' in el) item = el;
    else if (hasTooManyValues(el.text)) item = { skip: TOO_MANY_VALUES_REASON, line: el.line };
    else {
      const parsed = parseJson(el.text);
      item = parsed.ok ? { value: parsed.value, line: el.line } : { skip: `malformed JSON: ${parsed.message}`, line: el.line };
    }
    if (probing === null) {
      if ('skip' in item) skips.skip(item.line, item.skip);
      else run.push(item.value, item.line);
      return;
    }
    probing.push(item);
    if ('value' in item) {
      probedRecords += 1;
      probedChars += 'text' in el ? el.text.length : 0;
    }
    if ((probedRecords >= PROBE_RECORDS || probedChars >= PROBE_HELD_CHARS) && !decide()) declined = true;
  };

  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  let paused = false;
  let wake: (() => void) | null = null;
  options.flow?.({
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      wake?.();
      wake = null;
    },
  });
  const decoder = new StringDecoder('utf8');
  let endsWithNewline = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = decoder.write(chunk);
      if (text.length > 0) endsWithNewline = text.endsWith('\n');
      for (const el of splitter.push(text)) {
        take(el);
        if (declined) return false;
      }
      if (stopped) break;
      while (paused) await new Promise<void>((resolve) => (wake = resolve));
    }
    for (const el of splitter.push(decoder.end())) take(el);
  } catch (err) {
    if (err instanceof TooLargeToHoldHere) throw err;
    if (probing !== null) return false;
    summary.error = `could not read: ${sanitize(messageOf(err), { max: 200 })}`;
  } finally {
    stream.destroy();
  }
  const { last, ended } = splitter.end();
  if (ended === 'not-array') return false;
  if (last !== null) take(last);
  if (probing !== null && !decide()) return false;
  if (ended === 'trailing' && !stopped) skips.skip(splitter.trailingLine, 'text after the end of the JSON array: skipped');
  summary.lines = splitter.lines - (endsWithNewline ? 1 : 0);
  return true;
}
