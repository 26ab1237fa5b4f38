// Batch signatures and answer digests for the tool-batch detectors.
//
// A signature must not depend on the order the model happened to list its calls in, nor on the
// order of keys inside an argument object: both are serialization accidents, not intent. Answers
// are digested in the same canonical call order, so a reordered batch that got the same answers
// back is the same occurrence.

import { createHash, type Hash } from 'node:crypto';
import type { ToolAnswer, ToolCall } from '../../model/transcript.js';

/**
 * Nesting depth beyond which argument values collapse to one sentinel. Real tool arguments are a
 * handful of levels deep; the cap bounds the work and memory an adversarial transcript (arguments
 * nested thousands deep) can cost, at the price of treating two arguments that differ only below
 * this depth as the same call.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** Stands in for everything below MAX_ARGUMENT_DEPTH; `#` cannot occur outside a JSON string. */
const DEPTH_SENTINEL = '#';

/** Serialized text is handed to the hash in chunks of about this size, to bound memory. */
const CHUNK = 64 * 1024;

const HASH = 'sha256';

/** How many hex characters of a signature are shown as evidence: enough to tell batches apart by eye. */
export const SIGNATURE_PREFIX_LENGTH = 12;

class ChunkedHash {
  private buffer = '';
  constructor(private readonly hash: Hash) {}
  write(text: string): void {
    this.buffer += text;
    if (this.buffer.length >= CHUNK) this.flush();
  }
  flush(): void {
    if (this.buffer.length > 0) this.hash.update(this.buffer, 'utf8');
    this.buffer = '';
  }
  digest(): string {
    this.flush();
    return this.hash.digest('hex');
  }
}

/**
 * Writes the canonical form of `value` (JSON with object keys sorted, values deeper than
 * MAX_ARGUMENT_DEPTH replaced by the sentinel). Iterative: an explicit stack, so no input depth
 * can overflow the call stack.
 */
function writeCanonical(out: ChunkedHash, value: unknown): void {
  // A frame is either a value to write at a depth, or literal text to emit (closing brackets,
  // separators) once the values before it are written.
  type Frame = { text: string } | { value: unknown; depth: number };
  const stack: Frame[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if ('text' in frame) {
      out.write(frame.text);
      continue;
    }
    const v = frame.value;
    if (v === null || v === undefined) {
      out.write('null');
    } else if (typeof v === 'string') {
      out.write(JSON.stringify(v));
    } else if (typeof v === 'number') {
      // JSON has no NaN/Infinity; keep them distinct from null rather than merging them.
      out.write(Number.isFinite(v) ? JSON.stringify(v) : `~${String(v)}`);
    } else if (typeof v === 'boolean') {
      out.write(v ? 'true' : 'false');
    } else if (typeof v === 'bigint') {
      out.write(`${v.toString()}n`);
    } else if (typeof v !== 'object') {
      // Functions and symbols never come out of JSON.parse; one tag keeps the hash total.
      out.write(`~${typeof v}`);
    } else if (frame.depth >= MAX_ARGUMENT_DEPTH) {
      out.write(DEPTH_SENTINEL);
    } else if (Array.isArray(v)) {
      out.write('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i -= 1) {
        stack.push({ value: v[i], depth: frame.depth + 1 });
        if (i > 0) stack.push({ text: ',' });
      }
    } else {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      out.write('{');
      stack.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i]!;
        stack.push({ value: obj[key], depth: frame.depth + 1 });
        stack.push({ text: `${JSON.stringify(key)}:` });
        if (i > 0) stack.push({ text: ',' });
      }
    }
  }
}

/**
 * Digest of one call: its name and its canonical arguments. Arguments given as a JSON string are
 * parsed first (so `"{\"a\":1}"` and `{a: 1}` are the same call); a string that does not parse is
 * hashed as the raw string, tagged so it cannot collide with a parsed value.
 */
export function callDigest(call: ToolCall): string {
  const out = new ChunkedHash(createHash(HASH));
  out.write(`${call.name.length}:${call.name}|`);
  let args: unknown = call.arguments;
  let raw = false;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      raw = true;
    }
  }
  if (raw) {
    out.write('R');
    out.write(call.arguments as string);
  } else {
    out.write('J');
    writeCanonical(out, args);
  }
  return out.digest();
}

/** One answer: the error flag and the text, hashed once and never re-serialized. */
export function answerDigest(answer: ToolAnswer): string {
  const hash = createHash(HASH);
  hash.update(answer.isError ? 'E' : 'O');
  hash.update(answer.content, 'utf8');
  return hash.digest('hex');
}

export interface BatchSignature {
  /** Hex digest of the batch, independent of call order and argument key order. */
  signature: string;
  /** Per-call digests in canonical order. */
  calls: readonly string[];
  /** Tool names in canonical order (evidence: names are fine, arguments never). */
  names: readonly string[];
  /** `order[k]` is the index in the original batch of the k-th call in canonical order. */
  order: readonly number[];
}

/** The batch signature: per-call digests sorted, then hashed together. */
export function batchSignature(calls: readonly ToolCall[]): BatchSignature {
  const digests = calls.map(callDigest);
  const order = digests.map((_, i) => i).sort((a, b) => compare(digests[a]!, digests[b]!) || a - b);
  const sorted = order.map((i) => digests[i]!);
  const hash = createHash(HASH);
  hash.update(`batch:${sorted.length}|`);
  for (const d of sorted) hash.update(d);
  return {
    signature: hash.digest('hex'),
    calls: sorted,
    names: order.map((i) => calls[i]!.name),
    order,
  };
}

/**
 * Digest of a batch's answers in the batch's canonical call order, or null when the answers are
 * unknown (any call unanswered, or answers not aligned with the calls). Identical calls inside one
 * batch have no canonical order among themselves, so their answers are sorted within the group:
 * otherwise swapping two identical calls would change the digest.
 */
export function answersDigest(
  batch: BatchSignature,
  answers: readonly ToolAnswer[] | null,
): string | null {
  if (answers === null || answers.length !== batch.order.length) return null;
  const pairs = batch.order.map((i, k) => [batch.calls[k]!, answerDigest(answers[i]!)] as const);
  pairs.sort((x, y) => compare(x[0], y[0]) || compare(x[1], y[1]));
  const hash = createHash(HASH);
  hash.update(`answers:${pairs.length}|`);
  for (const [, a] of pairs) hash.update(a);
  return hash.digest('hex');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
