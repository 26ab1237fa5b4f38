// Batch signatures and answer digests for the tool-batch detectors.
//
// A signature must not depend on the order the model happened to list its calls in, nor on the
// order of keys inside an argument object: both are serialization accidents, not intent. Answers
// are digested in the same canonical call order, so a reordered batch that got the same answers
// back is the same occurrence.

import { hash } from 'node:crypto';
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

/**
 * SHA-256, in one native call per value (crypto.hash). A fast non-cryptographic hash was
 * measured first and lost: written in JavaScript (four 32-bit FNV/murmur lanes, 128 bits) it took
 * 75 ms per 20,000 tool results of ~500 characters where one-shot SHA-256 took 22 ms and
 * createHash().update().digest() 53 ms (the cost was the Hash object, not the hashing); Node has
 * no native non-cryptographic hash. Staying on SHA-256 also keeps every digest, and so every id
 * shown as evidence and every hook state file, unchanged. Two different values collide with
 * odds of n²/2^257: for a session of a million calls and answers, about 4·10^-66.
 */
const HASH = 'sha256';

/** How many hex characters of a signature are shown as evidence: enough to tell batches apart by eye. */
const SIGNATURE_PREFIX_LENGTH = 12;

/**
 * A call key up to this many characters is used as it is: comparing short strings is cheaper than
 * hashing them (three hashes a round cost a tenth of the whole ledger). Longer keys are hashed so
 * a run never holds megabytes of arguments.
 */
const MAX_PLAIN_KEY = 512;

/**
 * The canonical form of `value`: JSON with object keys sorted, values deeper than
 * MAX_ARGUMENT_DEPTH replaced by the sentinel. Iterative (an explicit stack, so no input depth can
 * overflow the call stack); pieces are collected and joined once.
 */
function canonical(value: unknown): string {
  const flat = flatObject(value);
  if (flat !== null) return flat;
  const parts: string[] = [];
  // Two parallel stacks instead of frame objects: a value to write at a depth, or (depth -1) a
  // literal to emit once the values before it are written.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (depth < 0) {
      parts.push(v as string);
      continue;
    }
    if (v === null || v === undefined) {
      parts.push('null');
    } else if (typeof v === 'string') {
      parts.push(JSON.stringify(v));
    } else if (typeof v === 'number') {
      // JSON has no NaN/Infinity; keep them distinct from null rather than merging them.
      parts.push(Number.isFinite(v) ? JSON.stringify(v) : `~${String(v)}`);
    } else if (typeof v === 'boolean') {
      parts.push(v ? 'true' : 'false');
    } else if (typeof v === 'bigint') {
      parts.push(`${v.toString()}n`);
    } else if (typeof v !== 'object') {
      // Functions and symbols never come out of JSON.parse; one tag keeps the key total.
      parts.push(`~${typeof v}`);
    } else if (depth >= MAX_ARGUMENT_DEPTH) {
      parts.push(DEPTH_SENTINEL);
    } else if (Array.isArray(v)) {
      parts.push('[');
      values.push(']');
      depths.push(-1);
      for (let i = v.length - 1; i >= 0; i -= 1) {
        values.push(v[i]);
        depths.push(depth + 1);
        if (i > 0) {
          values.push(',');
          depths.push(-1);
        }
      }
    } else {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      parts.push('{');
      values.push('}');
      depths.push(-1);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i]!;
        values.push(obj[key]);
        depths.push(depth + 1);
        values.push(`${quotedKey(key)}:`);
        depths.push(-1);
        if (i > 0) {
          values.push(',');
          depths.push(-1);
        }
      }
    }
  }
  return parts.join('');
}

/**
 * Most tool arguments are one flat object of strings, numbers and booleans: written directly, in
 * exactly the form the general walk below would produce, without its stacks.
 */
function flatObject(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length > 32) return null;
  keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const v = obj[key];
    let text: string;
    if (typeof v === 'string') text = JSON.stringify(v);
    else if (typeof v === 'number' && Number.isFinite(v)) text = JSON.stringify(v);
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else if (v === null) text = 'null';
    else return null;
    out += `${i > 0 ? ',' : ''}${quotedKey(key)}:${text}`;
  }
  return `${out}}`;
}

/**
 * Argument names, quoted as JSON.stringify quotes them: a session uses a few dozen (`command`,
 * `file_path`…) a hundred thousand times, so each is quoted once. Bounded: names come from the file.
 */
const QUOTED_KEYS = new Map<string, string>();
const MAX_QUOTED_KEYS = 4096;

function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (QUOTED_KEYS.size < MAX_QUOTED_KEYS && key.length <= 64) QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

function hashHex(text: string): string {
  return hash(HASH, text, 'hex');
}

/**
 * Key of one call: its name and its canonical arguments. Arguments given as a JSON string are
 * parsed first (so `"{\"a\":1}"` and `{a: 1}` are the same call); a string that does not parse is
 * keyed as the raw string, tagged so it cannot collide with a parsed value. Short keys are the
 * text itself (prefixed `=`), long ones a hash (prefixed `#`): the two can never be equal.
 */
export function callDigest(call: ToolCall): string {
  let args: unknown = call.arguments;
  let raw = false;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      raw = true;
    }
  }
  const key = `${call.name.length}:${call.name}|${raw ? `R${call.arguments as string}` : `J${canonical(args)}`}`;
  return key.length <= MAX_PLAIN_KEY ? `=${key}` : `#${hashHex(key)}`;
}

/**
 * A short id of a signature for evidence (the signature itself may hold arguments, which the
 * ledger never shows). Computed only when a finding is written.
 */
export function displayId(signature: string): string {
  // FNV-1a over UTF-16 units in two 32-bit lanes: cheap, deterministic, and plenty to tell
  // batches apart by eye (it identifies nothing: run identity compares whole signatures).
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ signature.length;
  for (let i = 0; i < signature.length; i += 1) {
    const c = signature.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
  }
  return ((a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')).slice(0, SIGNATURE_PREFIX_LENGTH);
}

/** One answer: the error flag and the text, hashed once and never re-serialized. */
export function answerDigest(answer: ToolAnswer): string {
  // Computed by this very function in the thread that read the answer (see ToolAnswer.digest).
  if (answer.digest !== undefined) return answer.digest;
  // The flag is one ASCII byte before the text: the same bytes as hashing them one after the other.
  return hashHex((answer.isError ? 'E' : 'O') + answer.content);
}

export interface BatchSignature {
  /** Identity of the batch, independent of call order and argument key order (compare whole). */
  signature: string;
  /** Per-call keys in canonical order. */
  calls: readonly string[];
  /** Tool names in canonical order (evidence: names are fine, arguments never). */
  names: readonly string[];
  /** `order[k]` is the index in the original batch of the k-th call in canonical order. */
  order: readonly number[];
}

/** The batch signature: per-call keys sorted, then joined (hashed when long). */
export function batchSignature(calls: readonly ToolCall[]): BatchSignature {
  const digests = calls.map(callDigest);
  const order = digests.map((_, i) => i);
  if (order.length > 1) order.sort((a, b) => compare(digests[a]!, digests[b]!) || a - b);
  const sorted = order.map((i) => digests[i]!);
  // A newline cannot occur inside a key (JSON escapes it; a raw key is hashed when it holds one
  // only if long, so tag the count too): the join is unambiguous.
  const joined = `batch:${sorted.length}|${sorted.join('\n')}`;
  const signature = joined.length <= MAX_PLAIN_KEY * 2 ? joined : `#${hashHex(joined)}`;
  return {
    signature,
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
  let text = `answers:${pairs.length}|`;
  for (const [, a] of pairs) text += a;
  return hashHex(text);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
