// What reading one file gave: its format, its sessions and lines, what was skipped and why it
// could not be read, if it could not. Produced by ingestFile; the ledger lists them as `inputs`.

import type { FormatName } from '../model/transcript.js';
import type { SkippedLine } from '../read/skipped.js';

export interface InputSummary {
  path: string;
  format: FormatName | null;
  sessions: number;
  lines: number;
  /** The first MAX_KEPT_SKIPS skipped lines of the file (memory stays bounded whatever the input). */
  skipped: SkippedLine[];
  /** Records set aside as carrying no conversation, by kind (only from readers that count them). */
  ignored?: Record<string, number>;
  /** Every skipped line of the file, counted exactly (`skipped` keeps only the first ones). */
  skipped_lines: number;
  /** Set when the file could not be analyzed at all (unreadable, binary, no known format). */
  error?: string;
  /** The path could not be read at all (missing, permission denied, I/O error): exit 2. */
  unreadable?: boolean;
  /**
   * Set (with `error`) when the file is no transcript at all: found in a directory, such a file is
   * counted on one stderr line rather than named (settings, todos, package.json, our own reports).
   */
  not_transcript?: NotTranscript;
}

/**
 * Why a file is no transcript: no known format, no content, not JSON, binary, a loopledger report, or
 * (told on its first megabyte, read/document-prefix.ts) a dataset or another JSON document.
 */
export type NotTranscript = 'unrecognized' | 'empty' | 'not-json' | 'binary' | 'loopledger-report' | 'unreadable' | 'dataset' | 'json-document';
