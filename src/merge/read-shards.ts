// The files named to `loopledger merge`, read in pieces (json-scan.ts): each input and session of a
// ledger is checked as it arrives (ledger-check.ts) and put aside in the spill (spill.ts), so a merge
// holds a few numbers per file and session and one whole session at a time; then the ledgers are
// added up (add-up.ts). Sweep partials are small and merged whole (sweeps.ts).

import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { SweepResult } from '../calibrate/sweep.js';
import type { InputSummary } from '../formats/input.js';
import type { NotTranscriptFile, SessionLedger } from '../ledger/types.js';
import { compareCodePoints } from '../read/discover.js';
import { type MergedShards, mergeShards } from './add-up.js';
import { JsonScanError, JsonScanner } from './json-scan.js';
import { checkSessionField, InputsSeen, LedgerFieldError, NotTranscriptsSeen, SessionsSeen } from './ledger-check.js';
import { asLedger, LEDGER_SCHEMA, MergeError } from './shard-checks.js';
import type { ShardLedger } from './shard-store.js';
import type { Spill } from './spill.js';
import { asSweep, mergeSweeps, SWEEP_SCHEMA } from './sweeps.js';

export type Merged = { kind: 'ledger'; merged: MergedShards } | { kind: 'sweep'; result: SweepResult };

/** A document as read: its members but `sessions`, which went to the spill (a ledger) or are kept (anything else). */
interface ReadDocument {
  name: string;
  value: unknown;
  /** A ledger checked as it ended: its files and no-transcripts in the spill (its `inputs` and `not_transcripts` let go), or why it was refused. */
  files?: { from: number; to: number };
  others?: { from: number; to: number };
  refusal?: MergeError;
}

function schemaOf(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)['schema'] : undefined;
}

/**
 * One file read in pieces (json-scan.ts): each session checked as it arrives and put in the spill,
 * every other member kept. A document that says it is no ledger keeps its sessions (if any) in place.
 */
async function readDocument(name: string, spill: Spill, timelines: boolean): Promise<ReadDocument> {
  const head: Record<string, unknown> = {};
  let whole: { value: unknown } | null = null;
  const firstSession = spill.sessionTotal;
  const sessionPaths: string[] = [];
  const seen = new SessionsSeen();
  // The inputs as they came (the last `inputs` list, were there two) and where their files begin in the spill.
  let inputs: InputsSeen | null = null;
  let firstFile = spill.fileCount;
  let kept: unknown[] | null = null;
  let keptInputs: unknown[] | null = null;
  // Likewise its no-transcripts (the last `not_transcripts` list), and whether they came in path order.
  let others: NotTranscriptsSeen | null = null;
  let firstOther = spill.notTranscriptCount;
  let keptOthers: unknown[] | null = null;
  let lastOther: string | null = null;
  let othersInOrder = true;
  const notLedger = () => head['schema'] !== undefined && head['schema'] !== LEDGER_SCHEMA;
  let firstLine = '';
  const refused = (e: unknown): never => {
    if (e instanceof LedgerFieldError) throw new MergeError(`${name}: ${e.message}: not a ledger loopledger wrote (edited by hand?)`);
    throw e;
  };
  const member = (key: string, value: unknown) => {
    // An own property whatever the name, as JSON.parse makes it (`"__proto__"` included).
    Object.defineProperty(head, key, { value, writable: true, enumerable: true, configurable: true });
  };
  const scanner = new JsonScanner(['inputs', 'sessions', 'not_transcripts'], {
    member: (key, value) => {
      if (key === 'inputs') inputs = null;
      if (key === 'not_transcripts') others = null;
      member(key, value);
    },
    elementsStart: (key) => {
      if (key === 'not_transcripts') {
        others = new NotTranscriptsSeen();
        firstOther = spill.notTranscriptCount;
        keptOthers = notLedger() ? [] : null;
        lastOther = null;
        othersInOrder = true;
        return;
      }
      if (key !== 'inputs') return;
      inputs = new InputsSeen();
      firstFile = spill.fileCount;
      keptInputs = head['schema'] !== undefined && head['schema'] !== LEDGER_SCHEMA ? [] : null;
    },
    // The inputs and sessions were gathered into `inputs` and `seen` for the checks of the rest (asLedger) as they came.
    elementsEnd: (key) => {
      member(key, (key === 'inputs' ? keptInputs : key === 'not_transcripts' ? keptOthers : kept) ?? []);
    },
    element: (value, index, key) => {
      if (key === 'not_transcripts') {
        if (keptOthers !== null) keptOthers.push(value);
        // Each checked as it comes and put in the spill; a refusal is said when the ledger ends.
        else if (others!.add(value, index)) {
          const file = value as NotTranscriptFile;
          if (lastOther !== null && compareCodePoints(lastOther, file.path) >= 0) othersInOrder = false;
          lastOther = file.path;
          spill.addNotTranscript(file);
        }
        return;
      }
      if (key === 'inputs') {
        if (keptInputs !== null) keptInputs.push(value);
        // Each input checked as it comes and put in the spill; a refusal is said when the ledger ends.
        else if (inputs!.add(value, index)) spill.addInput(value as InputSummary);
        return;
      }
      if (index === 0 && head['schema'] !== undefined && head['schema'] !== LEDGER_SCHEMA) kept = [];
      if (kept !== null) {
        kept.push(value);
        return;
      }
      // Dropped as each session is read: a shard's timelines are a fifth of it and only the page draws them.
      if (!timelines && typeof value === 'object' && value !== null) delete (value as Record<string, unknown>)['timeline'];
      try {
        checkSessionField(value, index);
      } catch (e) {
        refused(e);
      }
      const session = value as SessionLedger;
      // The session's path as its input's string: one copy of each path held, not two.
      const at = inputs !== null && typeof session.path === 'string' ? (inputs as InputsSeen).places.get(session.path) : undefined;
      if (at !== undefined) session.path = (inputs as InputsSeen).paths[at]!;
      // The whole session, while it is in memory: the checks read what its thin version holds.
      seen.add(session);
      sessionPaths.push(session.path);
      spill.add(session);
    },
    other: (value) => {
      whole = { value };
    },
  });
  const decoder = new StringDecoder('utf8');
  try {
    const source = name === '-' ? process.stdin : createReadStream(name, { highWaterMark: READ_CHUNK_BYTES });
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const text = decoder.write(chunk);
      if (firstLine.length < FIRST_LINE_CHARS && !firstLine.includes('\n')) firstLine += text.slice(0, FIRST_LINE_CHARS);
      scanner.feed(text);
    }
    scanner.feed(decoder.end());
    scanner.end();
  } catch (e) {
    if (e instanceof JsonScanError) {
      const first = firstLine.slice(0, firstLine.indexOf('\n') >>> 0);
      // Lines of objects, one after another: what --format ndjson writes, entries only.
      if (e.trailing && e.line > 1 && /^\s*\{.*\}\s*$/.test(first)) {
        throw new MergeError(`${name}: ndjson holds entries only (no calm sessions, inputs or totals): merge the --format json ledgers`);
      }
      throw new MergeError(`${name}: not JSON at line ${e.line} (byte ${e.byte}): ${e.message}`);
    }
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === 'string' && err.syscall !== undefined) {
      const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'a directory (name the ledger files)' : err.message;
      throw new MergeError(`${name}: cannot read: ${why}`);
    }
    throw e;
  }
  if (whole !== null) return { name, value: (whole as { value: unknown }).value };
  if (head['schema'] !== LEDGER_SCHEMA) return { name, value: head };
  // Checked now, so its inputs go to the spill and no ledger's list of them is held past its own
  // end; a refusal waits for the others to be read (a sweep among them, or another schema, is said first).
  try {
    const read = inputs as InputsSeen | null;
    const otherSeen = others as NotTranscriptsSeen | null;
    asLedger(head, name, read === null ? undefined : { sessions: seen, inputs: read, ...(otherSeen === null ? {} : { others: otherSeen }) });
    // Not reached without a list of inputs (asLedger refuses), so `read` holds them.
    const files = spill.addFiles({ from: firstFile, to: spill.fileCount }, read!, firstSession, sessionPaths);
    // None when the member is absent (a list given as anything else was refused above).
    const otherRange = otherSeen === null ? { from: spill.notTranscriptCount, to: spill.notTranscriptCount } : { from: firstOther, to: spill.notTranscriptCount };
    if (!othersInOrder) spill.notInPathOrder(otherRange);
    delete head['inputs'];
    delete head['not_transcripts'];
    return { name, value: head, files, others: otherRange };
  } catch (e) {
    if (e instanceof MergeError) return { name, value: head, refusal: e };
    throw e;
  }
}

/** Pieces of this many bytes are read at a time. */
const READ_CHUNK_BYTES = 1 << 20;
/** As much of a file's start as tells ndjson from a ledger. */
const FIRST_LINE_CHARS = 1 << 16;

interface MergeFileOptions {
  /** Notes on stderr (a file given twice, counted once). */
  onNote?: (message: string) => void;
  /** Keep each session's timeline (only the page draws them); without, they are dropped as each shard is read. */
  timelines?: boolean;
  /** The summary is added up as the sessions are read back in order (mergeShards). */
  summaryAsRead?: boolean;
}

/** Ledgers merge with ledgers, sweeps with sweeps; anything else is refused naming the file. */
export async function mergeFiles(files: readonly string[], spill: Spill, options: MergeFileOptions = {}): Promise<Merged> {
  if (files.length === 0) throw new MergeError('merge: name the JSON ledgers to merge (loopledger analyze … --shard K/N --format json)');
  const docs: ReadDocument[] = [];
  for (const name of files) docs.push(await readDocument(name, spill, options.timelines === true));
  const sweeps = docs.filter((d) => schemaOf(d.value) === SWEEP_SCHEMA);
  if (sweeps.length > 0 && sweeps.length < docs.length) {
    const other = docs.find((d) => schemaOf(d.value) !== SWEEP_SCHEMA)!;
    throw new MergeError(`${sweeps[0]!.name} is a sweep (${SWEEP_SCHEMA}) but ${other.name} is not: merge ledgers with ledgers, sweeps with sweeps`);
  }
  if (sweeps.length > 0) return { kind: 'sweep', result: mergeSweeps(docs.map((d) => ({ name: d.name, result: asSweep(d.value, d.name) }))) };
  // Different schema versions are refused by name before anything else.
  const schemas = docs.map((d) => ({ name: d.name, schema: schemaOf(d.value) }));
  const odd = schemas.find((s) => typeof s.schema === 'string' && s.schema !== schemas[0]!.schema);
  if (odd && typeof schemas[0]!.schema === 'string') {
    throw new MergeError(`${schemas[0]!.name} has schema ${String(schemas[0]!.schema)} but ${odd.name} has ${String(odd.schema)}: ledgers of different schema versions cannot be merged`);
  }
  const shards = docs.map((d) => {
    if (d.refusal !== undefined) throw d.refusal;
    // Not a ledger: asLedger says why.
    if (d.files === undefined || d.others === undefined) return { name: d.name, report: asLedger(d.value, d.name), files: { from: 0, to: 0 }, others: { from: 0, to: 0 } };
    return { name: d.name, report: d.value as ShardLedger['report'], files: d.files, others: d.others };
  });
  const asRead = options.summaryAsRead === true;
  return { kind: 'ledger', merged: mergeShards(shards, spill, { ...(options.onNote ? { onNote: options.onNote } : {}), summaryAsRead: asRead }) };
}
