// Recognizes files that cannot be transcripts from their first bytes, so that a binary or
// wrongly encoded file gets one clear message instead of thousands of "malformed line" reports.

import { isUtf8 } from 'node:buffer';

/** How many leading bytes decide whether a file is text: enough to see past any header. */
export const SNIFF_BYTES = 64 * 1024;

export type SniffVerdict =
  | { ok: true }
  | { ok: false; kind: 'binary' | 'encoding' | 'compressed'; message: string };

const OK: SniffVerdict = { ok: true };

const MAGIC: { bytes: number[]; kind: 'binary' | 'encoding' | 'compressed'; message: string }[] = [
  // UTF-32 first: its little-endian BOM begins with the UTF-16 one.
  { bytes: [0xff, 0xfe, 0x00, 0x00], kind: 'encoding', message: 'UTF-32 encoded, not UTF-8 (convert it first)' },
  { bytes: [0x00, 0x00, 0xfe, 0xff], kind: 'encoding', message: 'UTF-32 encoded, not UTF-8 (convert it first)' },
  { bytes: [0xff, 0xfe], kind: 'encoding', message: 'UTF-16 encoded, not UTF-8 (convert it first, e.g. iconv -f UTF-16 -t UTF-8)' },
  { bytes: [0xfe, 0xff], kind: 'encoding', message: 'UTF-16 encoded, not UTF-8 (convert it first, e.g. iconv -f UTF-16 -t UTF-8)' },
  { bytes: [0x1f, 0x8b], kind: 'compressed', message: 'gzip-compressed (decompress it first, e.g. gunzip -c FILE | loopledger -)' },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], kind: 'compressed', message: 'zstd-compressed (decompress it first)' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: 'compressed', message: 'a zip archive (extract it first)' },
];

/**
 * Judge a file from its first bytes. `complete` says `prefix` is the whole file, so that a
 * multi-byte character cut at the end is an encoding error rather than the edge of the sample.
 */
export function sniff(prefix: Uint8Array, complete: boolean): SniffVerdict {
  for (const m of MAGIC) {
    if (prefix.length >= m.bytes.length && m.bytes.every((b, i) => prefix[i] === b)) {
      return { ok: false, kind: m.kind, message: m.message };
    }
  }
  // JSON text never holds a raw NUL; one in the first bytes means a binary file.
  const nul = prefix.indexOf(0);
  if (nul !== -1) {
    return { ok: false, kind: 'binary', message: `binary file (NUL byte at offset ${nul}), not a transcript` };
  }
  const sample = complete ? prefix : prefix.subarray(0, characterBoundary(prefix));
  // Validated without decoding: a strict decode of the 64 KB into a string thrown away cost the
  // reading thread 77 ms over the real-shaped store's 1,000 files (issue 59).
  if (!isUtf8(sample)) {
    const at = firstInvalidByte(sample);
    return { ok: false, kind: 'encoding', message: `not UTF-8 text (invalid byte at offset ${at})` };
  }
  return OK;
}

/** The length of `bytes` without a trailing incomplete UTF-8 sequence. */
export function characterBoundary(bytes: Uint8Array): number {
  const n = bytes.length;
  // A UTF-8 sequence is at most 4 bytes: look back at most 3 continuation bytes for its lead.
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/** Offset of the first byte that breaks UTF-8 (only called once the decoder has refused). */
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
    if (need === 0) return i;
    if (need > 1) {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i, i + need));
      } catch {
        return i;
      }
    }
    i += need;
  }
  return bytes.length;
}
