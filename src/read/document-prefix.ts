// A large file that is one JSON document is told apart from a transcript on a bounded prefix, so
// that a chat dataset or a GeoJSON of any size is skipped after reading its first megabyte instead
// of being parsed whole (34-68 s for a 49 MB dataset) and read as one enormous session.

import { open } from 'node:fs/promises';

/** How much of the file is read to decide; files no larger are read whole as before. */
const DOCUMENT_PREFIX_BYTES = 1024 * 1024;

/** The keys some transcript format has near its start; a document with none of them is no transcript. */
const TRANSCRIPT_KEYS =
  /"(role|messages|message|history|trajectory|events|mapping|sessionId|session_id|resourceSpans|resourceLogs|spans|payload|parts|content|instructions|thread|observation|action|conversation|turns|steps)"\s*:/g;

/** Signs that rows of role/content are a recorded session rather than a dataset: ids, times, tools, usage. */
const SESSION_SIGNS = /"(id|timestamp|created|created_at|time|tool_calls|tool_call_id|function_call|tool_use|tool_result|functionCall|usage|model)"\s*:/;

/** Rows of role/content in the prefix beyond which, with no sign of a session, the document is a dataset. */
const DATASET_MIN_ROWS = 1000;

export interface DocumentVerdict {
  kind: 'dataset' | 'json-document';
  message: string;
}

/**
 * null when the file may be a transcript (or is small enough to read whole); otherwise what it is.
 * Only a file that opens as one JSON document (not JSON lines) is judged. `knownSize`: the file's
 * size, if the caller has just stat'ed it.
 */
export async function judgeLargeDocument(path: string, knownSize?: number): Promise<DocumentVerdict | null> {
  // Told the size (most files are far smaller), nothing is opened.
  if (knownSize !== undefined && knownSize <= DOCUMENT_PREFIX_BYTES) return null;
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return null; // the reader says why, as for any file
  }
  try {
    const size = (await handle.stat()).size;
    if (size <= DOCUMENT_PREFIX_BYTES) return null;
    // A small look first: JSON lines (the common case) are told by their first line without the
    // megabyte, which a reader lane whose heap is sized for its file must not be asked to hold.
    const glance = await readPrefix(handle, FIRST_LOOK_BYTES);
    if (isJsonLines(glance)) return null;
    return judgePrefix(await readPrefix(handle, DOCUMENT_PREFIX_BYTES), size);
  } finally {
    await handle.close();
  }
}

const FIRST_LOOK_BYTES = 16 * 1024;

async function readPrefix(handle: Awaited<ReturnType<typeof open>>, bytes: number): Promise<string> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
  return buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
}

/** Not one JSON document: its first character is no bracket, or its first line closes a record. */
function isJsonLines(text: string): boolean {
  const start = text.search(/\S/);
  const first = text[start];
  if (first !== '[' && first !== '{') return true;
  const newline = text.indexOf('\n', start);
  return newline >= 0 && isCompleteJson(text.slice(start, newline));
}

function judgePrefix(body: string, size: number): DocumentVerdict | null {
  if (isJsonLines(body)) return null;
  const first = body[body.search(/\S/)];
  const mb = (size / (1024 * 1024)).toFixed(1);
  const roles = (body.match(/"role"\s*:/g) ?? []).length;
  if (first === '[' && roles >= DATASET_MIN_ROWS && !SESSION_SIGNS.test(body)) {
    return { kind: 'dataset', message: `a dataset, no session: a ${mb} MB JSON array of role/content rows (${roles} in its first MB) with no ids, times, tools or usage` };
  }
  TRANSCRIPT_KEYS.lastIndex = 0;
  if (!TRANSCRIPT_KEYS.test(body)) {
    return { kind: 'json-document', message: `a ${mb} MB JSON document that is no session: none of a transcript's keys in its first MB` };
  }
  return null;
}

function isCompleteJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
