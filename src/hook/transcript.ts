// The agent's transcript, read incrementally: only the bytes written since the last hook call,
// through the same format adapter `analyze` uses. The last round of a reading may still grow
// (more content blocks, its tool results), so it is handed over as *tentative* and the next
// reading starts again at its first line: a call costs the new bytes plus one round, whatever
// the transcript's size.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { FormatAdapter, RecordParser } from '../formats/types.js';
import { TranscriptBuilder } from '../model/builder.js';
import type { Round, SessionInfo, TranscriptSink } from '../model/transcript.js';
import { readWholeFd } from './fd.js';
import { type Agent, formatOf, hookOf } from './payload.js';
import { isRecord as isRec } from '../is-record.js';

/** Where the next reading starts, and what it must know to resume there. Plain JSON. */
export interface TranscriptCursor {
  path: string;
  dev: number;
  ino: number;
  /** Byte offset of the first line not yet committed (the tentative round's first line, or EOF). */
  offset: number;
  /** Lines before `offset`. */
  line: number;
  /** The main session's turns and rounds before `offset` (numbering resumes from them). */
  turns: number;
  rounds: number;
  /** The session the hook follows: the first top-level session the transcript announced. */
  main: string | null;
  /**
   * Records the adapter must see again before resuming mid-file (Codex: the session_meta and the
   * latest turn_context; Gemini: the metadata line). Kept as their raw JSON text.
   */
  prelude: string[];
  /**
   * `document`: a JSON file rewritten whole as the session goes (a legacy Gemini session, Cline's
   * messages.json), read whole each time (`rounds` says what was seen).
   * `undecided`: a Gemini file whose first line is not complete yet. `oversize`: a legacy
   * document past DOCUMENT_MAX_BYTES, no longer read (the session is followed from stdin).
   */
  mode: 'jsonl' | 'document' | 'undecided' | 'oversize';
  /**
   * The bytes from `offset` to the next newline are the rest of a line too long to read (see
   * LONG_TAIL_BYTES): they are dropped unread. Absent in older state files.
   */
  skip?: boolean;
}

type TranscriptEvent = { type: 'turn'; turn: number } | { type: 'round'; round: Round };

export interface TranscriptDelta {
  /** Turns opened and rounds completed since the last reading, in order. */
  events: TranscriptEvent[];
  /** The round still being written: its calls, text and answers so far. Not committed. */
  tentative: Round | null;
}

export class TranscriptGone extends Error {}

/** A legacy Gemini document too large to parse on every call; `cursor` remembers it. */
export class TranscriptTooLarge extends Error {
  constructor(
    message: string,
    readonly cursor: TranscriptCursor,
  ) {
    super(message);
  }
}
/** The file at the path is not the one the cursor was reading (replaced, or shrank). */
export class TranscriptRotated extends Error {}

/** Each call loads only its own agent's adapter (every module costs start-up time). */
const ADAPTERS: Partial<Record<Agent, FormatAdapter>> = {};

export async function loadAdapter(agent: Agent): Promise<FormatAdapter> {
  const loaded = ADAPTERS[agent];
  if (loaded) return loaded;
  const transcript = hookOf(agent).transcript;
  if (transcript === undefined) throw new Error(`${agent}'s transcript is not followed live`);
  const adapter = await transcript.adapter();
  ADAPTERS[agent] = adapter;
  return adapter;
}

/** Bytes read at once; a first reading of a large transcript goes through it in these steps. */
const CHUNK = 4 * 1024 * 1024;

/**
 * A session met for the first time reads at most this much of its transcript: the detectors are
 * turn-scoped, so what matters is the current turn, and a first call must stay inside the hook's
 * timeout on a transcript of any size. (Reading 25 MB whole took 1 to 5 s on a shared machine.)
 */
export const CATCH_UP_BYTES = 4 * 1024 * 1024;

/** The first line's largest size read for a prelude (Codex's session_meta carries instructions). */
const HEAD_BYTES = 1024 * 1024;

/** A line longer than this is skipped unread (a tool result of 100 MB is no conversation we need). */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * An unfinished last line longer than this is not waited for: every call would read it again
 * from its start. The cursor moves past it and drops the rest of it when it ends (said once).
 * Agents write a record in one append, so a line unfinished for a whole call is never a record
 * being written at that size; one finished by the next reading is parsed up to MAX_LINE_BYTES.
 */
const LONG_TAIL_BYTES = CATCH_UP_BYTES;

/**
 * A legacy Gemini session is rewritten whole as it goes, so it is parsed whole on each call:
 * 0.2 to 0.45 s per MB (idle, loaded), so 4 MB could pass a second. Past this size the hook stops
 * reading it (said once) and follows the session from stdin alone, whose AfterAgent events still
 * end each turn: the guard stays on, without the transcript's text and thinking.
 */
const DOCUMENT_MAX_BYTES = 2 * 1024 * 1024;

/** Opened so that a FIFO or a device cannot block the call (it is refused once opened). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Collects the main session's events; rounds delivered while the reading ends are tentative. */
class DeltaSink implements TranscriptSink {
  readonly events: TranscriptEvent[] = [];
  tentative: Round | null = null;
  ending = false;
  turns: number;
  rounds: number;

  constructor(
    public main: string | null,
    start: { turns: number; rounds: number },
  ) {
    this.turns = start.turns;
    this.rounds = start.rounds;
  }

  session(info: SessionInfo): void {
    if (this.main === null && info.parent === null) this.main = info.id;
  }

  turn(sessionId: string, turn: number): void {
    if (sessionId !== this.main) return;
    this.turns = Math.max(this.turns, turn);
    this.events.push({ type: 'turn', turn });
  }

  round(sessionId: string, round: Round): void {
    if (sessionId !== this.main) return;
    if (this.ending) {
      this.tentative = round;
      return;
    }
    this.rounds = Math.max(this.rounds, round.index);
    this.events.push({ type: 'round', round });
  }

  end(): void {}
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Which records an agent's adapter must see again when reading resumes mid-file. */
function updatePrelude(agent: Agent, prelude: string[], value: unknown, text: string): string[] {
  const update = hookOf(agent).transcript?.prelude;
  return update === undefined || !isRec(value) ? prelude : update(prelude, value, text);
}

/**
 * Read what `path` gained since `cursor` (null: from the start). Throws TranscriptGone when the
 * file cannot be read and TranscriptRotated when it is no longer the file the cursor followed.
 */
export function readTranscript(
  agent: Agent,
  path: string,
  cursor: TranscriptCursor | null,
): TranscriptReading {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (e) {
    throw new TranscriptGone(`transcript ${path}: ${(e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TranscriptGone(`transcript ${path}: not a regular file`);
    if (cursor && (cursor.dev !== st.dev || cursor.ino !== st.ino || st.size < cursor.offset)) {
      throw new TranscriptRotated(`transcript ${path} was replaced or truncated since the last call`);
    }
    const start: TranscriptCursor = cursor ?? {
      path,
      dev: st.dev,
      ino: st.ino,
      offset: 0,
      line: 0,
      turns: 0,
      rounds: 0,
      main: null,
      prelude: [],
      mode: hookOf(agent).transcript?.layout ?? 'jsonl',
    };
    if (start.mode === 'undecided') {
      start.mode = layoutOf(fd, st.size);
      if (start.mode === 'undecided') return { delta: { events: [], tentative: null }, cursor: start };
    }
    if (start.mode === 'oversize') throw new TranscriptTooLarge(oversize(path), start);
    if (start.mode === 'document') {
      if (st.size > DOCUMENT_MAX_BYTES) throw new TranscriptTooLarge(oversize(path, st.size), { ...start, mode: 'oversize' });
      return readDocument(agent, fd, st.size, start);
    }
    const notice = cursor === null && st.size > CATCH_UP_BYTES ? joinLate(agent, fd, st.size, start) : null;
    const reading = readLines(agent, fd, st.size, start);
    return notice !== null ? { ...reading, notice } : reading;
  } finally {
    closeSync(fd);
  }
}

export interface TranscriptReading {
  delta: TranscriptDelta;
  cursor: TranscriptCursor;
  /** Something the user should hear of once (a line skipped as too long). */
  notice?: string;
}

function oversize(path: string, size?: number): string {
  return `transcript ${path}${size !== undefined ? ` (${size} bytes)` : ''} is a legacy JSON session larger than ${DOCUMENT_MAX_BYTES} bytes: no longer read on each call; the session is followed from the hook's payloads alone`;
}

/**
 * Start a first reading near the end of a long transcript: at the first line that begins in its
 * last CATCH_UP_BYTES, with the head's prelude records (the first line) taken along. Line numbers
 * then count from there; only the hook's own bookkeeping reads them. No line begins there (one
 * line longer than the bound straddles it): the reading starts at the end and drops that line's
 * rest, so the bound holds and the cursor advances. Returns what to say about it, if anything.
 */
function joinLate(agent: Agent, fd: number, size: number, cursor: TranscriptCursor): string | null {
  const from = size - CATCH_UP_BYTES;
  const probe = Buffer.allocUnsafe(1024 * 1024);
  let nl = -1;
  for (let at = from - 1; at < size && nl < 0; at += probe.length) {
    const n = readSync(fd, probe, 0, Math.min(probe.length, size - at), at);
    if (n <= 0) break;
    const i = probe.subarray(0, n).indexOf(10);
    if (i >= 0) nl = at + i;
  }
  let notice: string | null = null;
  if (nl < 0) {
    cursor.offset = size;
    cursor.skip = true;
    notice = `transcript ${cursor.path}: its last line is longer than ${CATCH_UP_BYTES} bytes and unfinished; skipped (the guard resumes at the next line)`;
  } else {
    cursor.offset = nl + 1;
  }
  const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
  const h = readSync(fd, head, 0, head.length, 0);
  const firstNl = head.subarray(0, h).indexOf(10);
  if (firstNl > 0) {
    const text = head.toString('utf8', 0, firstNl);
    cursor.prelude = updatePrelude(agent, cursor.prelude, parse(text), text);
  }
  return notice;
}

/**
 * A legacy Gemini session is one pretty-printed JSON object: its first line is not a record.
 * Until that first line is complete the layout cannot be told.
 */
function layoutOf(fd: number, size: number): TranscriptCursor['mode'] {
  const head = Buffer.alloc(Math.min(size, 64 * 1024));
  readSync(fd, head, 0, head.length, 0);
  const text = head.toString('utf8');
  const nl = text.indexOf('\n');
  if (nl < 0) {
    // One line and no newline: a minified document, or a JSONL header still being written
    // (which never holds messages).
    const whole = head.length === size ? parse(text) : undefined;
    return isRec(whole) && Array.isArray(whole.messages) && whole.messages.length > 0 ? 'document' : 'undecided';
  }
  const firstLine = text.slice(0, nl).trim();
  return firstLine.startsWith('{') && !isRec(parse(firstLine)) ? 'document' : 'jsonl';
}

function open(agent: Agent, path: string, sink: DeltaSink, resume: { turns: number; rounds: number }): RecordParser {
  const adapter = ADAPTERS[agent];
  if (!adapter) throw new Error(`loadAdapter('${agent}') first`);
  const builder = new TranscriptBuilder(sink, path, formatOf(agent), resume);
  const parser = adapter.open({ path, builder, skip: () => {} });
  return {
    push: (value, line) => parser.push(value, line),
    end: () => {
      sink.ending = true;
      parser.end();
      builder.end();
    },
  };
}

function readLines(agent: Agent, fd: number, size: number, cursor: TranscriptCursor): TranscriptReading {
  const sink = new DeltaSink(cursor.main, cursor);
  const parser = open(agent, cursor.path, sink, cursor);
  let prelude = cursor.prelude;
  for (const text of prelude) parser.push(parse(text), null);

  // Byte offset of each line read (by line number), to resume at the tentative round's first line.
  const offsets = new Map<number, number>();
  let line = cursor.line;
  let position = cursor.offset;
  let consumed = cursor.offset;
  let carry: Buffer | null = null;
  // The rest of a line already judged too long (cursor.skip) is dropped up to its newline.
  let skipping = cursor.skip === true;
  const buffer = Buffer.allocUnsafe(CHUNK);
  while (position < size) {
    const n = readSync(fd, buffer, 0, Math.min(CHUNK, size - position), position);
    if (n <= 0) break;
    let chunk = buffer.subarray(0, n);
    const chunkStart = position - (carry?.length ?? 0);
    if (carry) chunk = Buffer.concat([carry, chunk]);
    carry = null;
    position += n;
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      if (nl < 0) break;
      line += 1;
      const lineStart = chunkStart + from;
      offsets.set(line, lineStart);
      if (!skipping) {
        const text = chunk.toString('utf8', from, nl);
        if (text.trim() !== '') {
          const value = parse(text);
          if (value !== undefined) {
            prelude = updatePrelude(agent, prelude, value, text);
            parser.push(value, line);
          }
        }
      }
      skipping = false;
      from = nl + 1;
      consumed = chunkStart + from;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      if (rest.length > MAX_LINE_BYTES) {
        // An enormous unfinished line: drop what is held and skip to its end.
        skipping = true;
        carry = null;
      } else {
        carry = Buffer.from(rest);
      }
    }
  }
  parser.end();

  const tentative = sink.tentative;
  const next: TranscriptCursor = { ...cursor, main: sink.main, prelude };
  delete next.skip;
  // An unfinished last line too long to read again on every call: moved past (said once).
  const longTail = skipping || size - consumed > LONG_TAIL_BYTES;
  let notice: string | undefined;
  if (longTail) {
    if (cursor.skip !== true || consumed > cursor.offset) {
      notice = `transcript ${cursor.path}: the line at byte ${consumed} is longer than ${skipping ? MAX_LINE_BYTES : LONG_TAIL_BYTES} bytes and unfinished; skipped (the guard resumes at the next line)`;
    }
    next.offset = size;
    next.skip = true;
    next.line = line;
    next.turns = sink.turns;
    next.rounds = sink.rounds;
  } else if (tentative && tentative.line !== null && offsets.has(tentative.line)) {
    next.offset = offsets.get(tentative.line)!;
    next.line = tentative.line - 1;
    next.turns = tentative.turn;
    next.rounds = tentative.index - 1;
  } else {
    // Everything complete is committed; an unfinished last line is read again next time.
    next.offset = consumed;
    next.line = line;
    next.turns = sink.turns;
    next.rounds = sink.rounds;
  }
  const reading: TranscriptReading = { delta: { events: sink.events, tentative }, cursor: next };
  if (notice !== undefined) reading.notice = notice;
  return reading;
}

/** A JSON document (a legacy Gemini session, Cline's messages.json): parsed whole, and only the rounds not yet seen are handed over. */
function readDocument(agent: Agent, fd: number, size: number, cursor: TranscriptCursor): TranscriptReading {
  const value = parse(readWholeFd(fd, size));
  const sink = new DeltaSink(cursor.main, { turns: 0, rounds: 0 });
  const parser = open(agent, cursor.path, sink, { turns: 0, rounds: 0 });
  if (value !== undefined) parser.push(value, null);
  parser.end();
  // The document has no lines: a round's index stands in for its line (its identity).
  const all: TranscriptEvent[] = sink.events.map((e) => (e.type === 'round' ? { type: 'round', round: { ...e.round, line: e.round.index } } : e));
  if (sink.tentative) all.push({ type: 'round', round: { ...sink.tentative, line: sink.tentative.index } });
  // A legacy document is rewritten whole as the session goes: its last round may still change.
  let last = -1;
  all.forEach((e, i) => {
    if (e.type === 'round') last = i;
  });
  const tentative = last >= 0 ? (all[last] as { type: 'round'; round: Round }).round : null;
  let events = all.filter((e, i) => i !== last && (e.type === 'turn' ? e.turn > cursor.turns : e.round.index > cursor.rounds));
  if (cursor.turns === 0 && cursor.rounds === 0) {
    // A first reading joins at the current turn, as joinLate does for JSONL: the detectors are
    // turn-scoped, and feeding a long session's every round would not fit in one call.
    const current = events.findLastIndex((e) => e.type === 'turn');
    if (current > 0) events = events.slice(current);
  }
  const next: TranscriptCursor = {
    ...cursor,
    main: sink.main,
    offset: 0,
    turns: Math.max(cursor.turns, sink.turns),
    rounds: tentative ? tentative.index - 1 : Math.max(cursor.rounds, sink.rounds),
  };
  return { delta: { events, tentative }, cursor: next };
}
