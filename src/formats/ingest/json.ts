// JSON text as ingestion reads it: a parse that reports instead of throwing, and the few words
// used to describe what a line or a document held.

export type JsonValue = { ok: true; value: unknown } | { ok: false; message: string };

export function parseJson(text: string): JsonValue {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/**
 * parseJson for a file that has shown many bad lines: the same result, but the SyntaxError is
 * thrown without capturing a stack trace, which is most of its cost (a file of millions of
 * broken lines reads in well under half the time).
 */
export function parseJsonCheaply(text: string): JsonValue {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return parseJson(text);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A JSON object or array: what a line or document must be to hold a record (a scalar is none). */
export function isJsonContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

export function describeScalar(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  return String(value);
}

export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * Whether JSON.parse failed only for want of more text: V8 says "end of JSON input" or points at
 * the very end. A document with an error inside it (a trailing comma) is malformed, not cut.
 */
export function endsEarly(text: string, message: string): boolean {
  if (/end of JSON input/.test(message)) return true;
  const at = /at position (\d+)/.exec(message);
  return at !== null && Number(at[1]) >= text.trimEnd().length;
}
