// What the adding-up (add-up.ts) reads of the shards: their files and sessions by number, each read
// back whole only when asked for. The spill (spill.ts) is the store a merge keeps them in.

import type { InputSummary } from '../formats/input.js';
import type { LedgerReport, NotTranscriptFile, SessionLedger } from '../ledger/types.js';

/**
 * The shards' files and sessions as a merge holds them, each numbered in the order it was read
 * (ledger by ledger, each in its own order). A merge of shards of any size keeps a few numbers per
 * file and per session (the spill keeps the rest on disk) and reads an input or a session
 * back whole when it is asked for one.
 */
export interface ShardStore {
  readonly fileCount: number;
  /** The file's path (read back from its input, where the store keeps no path). */
  path(file: number): string;
  /** pathKeyOf its path, computed as it was read. */
  pathKey(file: number): number;
  /** Whether a ledger's files, `from` up to `to`, are listed in code point order of their paths, as a run lists them. */
  inPathOrder(files: { from: number; to: number }): boolean;
  input(file: number): InputSummary;
  /** What tells the file from others cheaply (likenessOf), computed as it was read. */
  likeness(file: number): number;
  /** Its sessions, in their order in its ledger. */
  sessionsOf(file: number): ArrayLike<number>;
  /** What the summary, the exit code and the checks read of a session: its thin version, or the whole session. */
  thin(session: number): SessionLedger;
  load(session: number): SessionLedger;
  /** Files that are no transcripts, numbered as read (ledger by ledger, each in its own order). */
  readonly notTranscriptCount: number;
  notTranscript(n: number): NotTranscriptFile;
  /** pathKeyOf its path, computed as it was read. */
  notTranscriptKey(n: number): number;
  /** Whether a ledger's no-transcripts, `from` up to `to`, are listed in code point order of their paths. */
  notTranscriptsInPathOrder(others: { from: number; to: number }): boolean;
  /** The files' inputs in this order, as a list read as often as it is iterated. */
  inputsInOrder(files: Uint32Array): Iterable<InputSummary>;
  /** The no-transcripts in this order, likewise. */
  notTranscriptsInOrder(others: Uint32Array): Iterable<NotTranscriptFile>;
  /** The sessions' thin versions in this order, likewise. */
  thinInOrder(sessions: Uint32Array): Iterable<SessionLedger>;
}

/**
 * 30 bits of FNV-1a over a session's id: a small integer, held in place by V8 (a merge keeps one
 * per session). Ids that collide only cost a fingerprint (FileSet compares those).
 */
export function sessionIdHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h & 0x3fffffff;
}

/** A shard's fields as its file gave them (inputs and sessions aside) and its files in the store. */
export interface ShardLedger {
  name: string;
  report: Omit<LedgerReport, 'sessions' | 'inputs' | 'not_transcripts'>;
  /** Its files are the store's from `from` up to `to`, not included. */
  files: { from: number; to: number };
  /** Its files that are no transcripts, likewise. */
  others: { from: number; to: number };
}
