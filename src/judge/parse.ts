// The judge's reply, read defensively (seed 002: "the reply contract is a small JSON verdict parsed
// defensively"). Models wrap JSON in code fences, put prose around it, drop fields, quote numbers,
// or stop mid-object; whatever comes back, this never throws, and anything it cannot read with
// certainty is null (Indeterminate), never a guess.

export interface ParsedVerdict {
  verdict: 'loop' | 'progress';
  /** null when missing or not a number in 0..1: such an answer never escalates. */
  confidence: number | null;
  reason: string | null;
}

/** Replies are small; a runaway one is read only this far. */
const MAX_SCAN_CHARS = 64 * 1024;
/** Objects tried per reply. */
const MAX_CANDIDATES = 64;
/** The reason is kept for the cache file, for people; it never reaches the ledger. */
export const MAX_REASON_CHARS = 300;

const VERDICT_WORDS: Record<string, 'loop' | 'progress'> = {
  loop: 'loop',
  progress: 'progress',
  // The same answer in the words a model might reach for.
  not_loop: 'progress',
  no_loop: 'progress',
  not_a_loop: 'progress',
};

export function parseVerdictReply(reply: unknown): ParsedVerdict | null {
  if (typeof reply !== 'string' || reply.length === 0) return null;
  const text = reply.length > MAX_SCAN_CHARS ? reply.slice(0, MAX_SCAN_CHARS) : reply;
  const found: ParsedVerdict[] = [];
  for (const obj of jsonObjects(text)) {
    const v = fromObject(obj);
    if (v) found.push(v);
  }
  if (found.length === 0) {
    const loose = fromLooseText(text);
    return loose;
  }
  // Two well-formed answers that disagree are no answer.
  if (found.some((v) => v.verdict !== found[0]!.verdict)) return null;
  return found[0]!;
}

/** Every balanced `{…}` that parses as a JSON object, outermost first, left to right. */
function* jsonObjects(text: string): Generator<Record<string, unknown>> {
  let tried = 0;
  let from = 0;
  while (tried < MAX_CANDIDATES) {
    const start = text.indexOf('{', from);
    if (start < 0) return;
    const end = matchingBrace(text, start);
    tried += 1;
    if (end > start) {
      try {
        const parsed: unknown = JSON.parse(text.slice(start, end + 1));
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
          yield parsed as Record<string, unknown>;
          from = end + 1;
          continue;
        }
      } catch {
        // Not JSON from here: try the next brace.
      }
    }
    from = start + 1;
  }
}

/** Index of the brace closing the one at `start` (strings respected), or -1. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Field lookup that forgives case (`Verdict`, `CONFIDENCE`). */
function field(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const key = Object.keys(obj).find((k) => k.trim().toLowerCase() === name);
  return key === undefined ? undefined : obj[key];
}

function verdictOf(v: unknown): 'loop' | 'progress' | null {
  if (typeof v !== 'string') return null;
  const word = v.trim().toLowerCase().replace(/[\s-]+/g, '_');
  return VERDICT_WORDS[word] ?? null;
}

/** A number in 0..1, or a string holding exactly one; anything else is no confidence. */
export function confidenceOf(v: unknown): number | null {
  let n: number | null = null;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)\s*$/.test(v)) n = Number(v);
  return n !== null && Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}

function reasonOf(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  // oxlint-disable-next-line no-control-regex -- control characters are what is being removed
  const clean = v.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (clean === '') return null;
  return [...clean].slice(0, MAX_REASON_CHARS).join('');
}

function fromObject(obj: Record<string, unknown>): ParsedVerdict | null {
  const verdict = verdictOf(field(obj, 'verdict'));
  if (!verdict) return null;
  return { verdict, confidence: confidenceOf(field(obj, 'confidence')), reason: reasonOf(field(obj, 'reason')) };
}

/**
 * No well-formed object: a reply cut off mid-object (`{"verdict": "loop", "confidence": 0.9` and
 * nothing more) or written with single quotes still names its fields. Read them by name only.
 */
function fromLooseText(text: string): ParsedVerdict | null {
  const verdicts = [...text.matchAll(/["']verdict["']\s*:\s*["']([A-Za-z_ -]{1,20})["']/gi)].map((m) => verdictOf(m[1]));
  if (verdicts.length === 0 || verdicts.some((v) => v === null || v !== verdicts[0])) return null;
  const conf = /["']confidence["']\s*:\s*["']?([0-9.]+)["']?/i.exec(text);
  const reason = /["']reason["']\s*:\s*"((?:[^"\\]|\\.){0,2000})"/i.exec(text);
  return {
    verdict: verdicts[0]!,
    confidence: conf ? confidenceOf(conf[1]) : null,
    reason: reason ? reasonOf(reason[1]) : null,
  };
}
