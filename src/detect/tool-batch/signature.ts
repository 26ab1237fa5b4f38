// Batch signatures and answer digests for the tool-batch detectors.
//
// A signature must not depend on the order the model happened to list its calls in, nor on the
// order of keys inside an argument object: both are serialization accidents, not intent. Answers
// are digested in the same canonical call order, so a reordered batch that got the same answers
// back is the same occurrence.

import { createHash, hash, type Hash } from 'node:crypto';
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
 * A call's key as it is written: kept as text while it is short (MAX_PLAIN_KEY), hashed as it goes
 * once longer, so a call of megabytes of arguments never holds its canonical text (a piece list
 * of millions of strings, then their join) but only a hash state and a slice in hand.
 */
class KeyWriter {
  private text = '';
  private hasher: Hash | null = null;

  write(piece: string): void {
    this.text += piece;
    if (this.text.length <= MAX_PLAIN_KEY) return;
    if (this.text.length < HASH_SLICE_CHARS && this.hasher !== null) return;
    this.hasher ??= createHash(HASH);
    this.hasher.update(this.text);
    this.text = '';
  }

  /** `=` and the text when short, `#` and its hash when long: the same bytes give the same hash as one-shot. */
  key(): string {
    if (this.hasher === null) return `=${this.text}`;
    return `#${this.hasher.update(this.text).digest('hex')}`;
  }
}

/** Text a KeyWriter gathers between two updates of its hash once the key is long. */
const HASH_SLICE_CHARS = 64 * 1024;

/**
 * The canonical form of `value` into `out`: JSON with object keys sorted, values deeper than
 * MAX_ARGUMENT_DEPTH replaced by the sentinel. Iterative (an explicit stack, so no input depth can
 * overflow the call stack).
 */
function canonical(value: unknown, out: KeyWriter): void {
  const flat = flatObject(value);
  if (flat !== null) {
    out.write(flat);
    return;
  }
  // Two parallel stacks instead of frame objects: a value to write at a depth, or (depth -1) a
  // literal to emit once the values before it are written.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (depth < 0) {
      out.write(v as string);
      continue;
    }
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
      // Functions and symbols never come out of JSON.parse; one tag keeps the key total.
      out.write(`~${typeof v}`);
    } else if (depth >= MAX_ARGUMENT_DEPTH) {
      out.write(DEPTH_SENTINEL);
    } else if (Array.isArray(v)) {
      out.write('[');
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
      out.write('{');
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
  const known = LONG_CALL_DIGESTS.get(call);
  if (known !== undefined) return known;
  let args: unknown = call.arguments;
  let raw = false;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      raw = true;
    }
  }
  const out = new KeyWriter();
  out.write(`${call.name.length}:${call.name}|`);
  if (raw) out.write(`R${call.arguments as string}`);
  else {
    out.write('J');
    canonical(args, out);
  }
  const key = out.key();
  // The detectors, the cut and the ledger each ask for a round's keys: a long one is written once.
  if (key.startsWith('#')) LONG_CALL_DIGESTS.set(call, key);
  return key;
}

/**
 * Hashed keys by call, for as long as the call lives. A cache, not state: the same call always
 * has the same key (issue 53, item 11: a call of 2.4 MB of arguments was canonicalised five times a round).
 */
const LONG_CALL_DIGESTS = new WeakMap<ToolCall, string>();

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
  const known = LONG_ANSWER_DIGESTS.get(answer);
  if (known !== undefined) return known;
  const content = answer.content;
  const flag = answer.isError ? 'E' : 'O';
  // A long answer is fed after its flag rather than joined to it: the joined string is a copy of
  // the whole answer (flattened before hashing, two bytes a character if the answer is): the
  // real-shaped store's 54,022 answers (79 MB) hashed in 0.41-0.57 s joined, 0.20-0.22 s so (same digests).
  const digest = content.length < FED_ANSWER_CHARS ? hashHex(flag + content) : createHash(HASH).update(flag).update(content).digest('hex');
  if (content.length >= MIN_REMEMBERED_ANSWER_CHARS) LONG_ANSWER_DIGESTS.set(answer, digest);
  return digest;
}

/**
 * Answers this long are fed to a Hash object instead of joined to their flag. The object costs a
 * few microseconds, a copy of a long answer more: on the real-shaped store's answers, thresholds
 * of 256 to 8,192 characters measured alike (0.16-0.26 s, one run; the copies that matter are of
 * the long ones), so the short answers, most of them, keep their one native call.
 */
const FED_ANSWER_CHARS = 4096;

/** Answers this long are hashed once however many detectors ask (a 60 MB result was hashed twice, 2 s each). */
const MIN_REMEMBERED_ANSWER_CHARS = 4096;
const LONG_ANSWER_DIGESTS = new WeakMap<ToolAnswer, string>();

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
