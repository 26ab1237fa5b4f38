// A SQLite database that an agent may have open in WAL mode, read as one consistent snapshot and
// never written, locked or checkpointed (issue 55 item 2): the main file and its `-wal` are read
// as bytes, the WAL's committed frames laid over the pages, and the image opened in memory with
// sql.js (SQLite compiled to WebAssembly: no native build, nothing downloaded). The `-shm` index
// is never opened: a frame is trusted by its salts and checksum chain, as SQLite's recovery does.

import { promises as fs } from 'node:fs';

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const WAL_HEADER = 32;
const FRAME_HEADER = 24;
/** Past this a database is not loaded into memory (sql.js holds it whole): said, not attempted. */
const SQLITE_MAX_BYTES = 1024 * 1024 * 1024;
/** A checkpoint that restarts the WAL while it is read: read again, a bounded number of times. */
const ATTEMPTS = 5;

/** Whether these first bytes are a SQLite database's. */
function isSqliteHeader(head: Uint8Array): boolean {
  return head.length >= MAGIC.length && Buffer.from(head.buffer, head.byteOffset, MAGIC.length).equals(MAGIC);
}

/**
 * Whether the file at `path` is a SQLite database (false when it cannot be read). A database
 * created in WAL mode stays empty until its first checkpoint: then its `-wal` says so.
 */
export async function isSqliteFile(path: string): Promise<boolean> {
  const head = await readFirst(path, MAGIC.length);
  if (head !== null && head.length > 0) return head.length === MAGIC.length && isSqliteHeader(head);
  const wal = await readFirst(`${path}-wal`, 4);
  return head !== null && wal !== null && wal.length === 4 && (wal.readUInt32BE(0) & 0xfffffffe) === 0x377f0682;
}

async function readFirst(path: string, bytes: number): Promise<Buffer | null> {
  let handle;
  try {
    handle = await fs.open(path, 'r');
    const head = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(head, 0, bytes, 0);
    return head.subarray(0, bytesRead);
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}

class SnapshotError extends Error {}

/**
 * The database's pages as of the last transaction committed in its WAL. The WAL header is read
 * before the main file and again with the frames after it: a WAL restarted in between (a
 * checkpoint that reset it) could have moved frames into the main file after we read it, so the
 * read is done again.
 */
async function snapshotImage(path: string): Promise<Uint8Array> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const before = await readHead(`${path}-wal`, WAL_HEADER);
    const stat = await fs.stat(path);
    if (stat.size > SQLITE_MAX_BYTES) throw new SnapshotError(`a database of ${Math.round(stat.size / 2 ** 20)} MB is more than loopledger loads (${SQLITE_MAX_BYTES / 2 ** 20} MB)`);
    const main = await fs.readFile(path);
    const wal = await readOptional(`${path}-wal`);
    const same = before === null ? wal === null || wal.length < WAL_HEADER : wal !== null && wal.length >= WAL_HEADER && wal.subarray(0, WAL_HEADER).equals(before);
    if (same) return applyWal(main, wal);
  }
  throw new SnapshotError('the database kept changing under the read (its WAL restarted each time)');
}

/** The main file with the WAL's committed frames applied, marked as a rollback-journal database so it opens in memory. */
function applyWal(main: Buffer, wal: Buffer | null): Uint8Array {
  const frames = wal ? committedFrames(wal) : null;
  let image: Buffer = main;
  if (frames && frames.pages.size > 0) {
    const size = frames.dbPages * frames.pageSize;
    image = Buffer.alloc(size);
    main.copy(image, 0, 0, Math.min(main.length, size));
    for (const [page, offset] of frames.pages) wal!.copy(image, (page - 1) * frames.pageSize, offset, offset + frames.pageSize);
  } else {
    image = Buffer.from(main);
  }
  if (!isSqliteHeader(image)) throw new SnapshotError('not a SQLite database');
  // Bytes 18 and 19 say "WAL": the in-memory copy is an ordinary database with no WAL of its own.
  image[18] = 1;
  image[19] = 1;
  return image;
}

interface Frames {
  pageSize: number;
  /** The database's size in pages after the last commit. */
  dbPages: number;
  /** Each page's latest committed frame: the offset of its data in the WAL. */
  pages: Map<number, number>;
}

/** The frames of committed transactions: salts matching the header, the checksum chain unbroken, up to the last commit frame. */
function committedFrames(wal: Buffer): Frames | null {
  if (wal.length < WAL_HEADER) return null;
  const magic = wal.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return null;
  const bigEndian = magic === 0x377f0683;
  const pageSize = wal.readUInt32BE(8);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return null;
  let [s0, s1] = checksum(wal, 0, 24, 0, 0, bigEndian);
  if (s0 !== wal.readUInt32BE(24) || s1 !== wal.readUInt32BE(28)) return null;
  const salt = wal.subarray(16, 24);
  const pages = new Map<number, number>();
  const pending = new Map<number, number>();
  let dbPages = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    if (!wal.subarray(at + 8, at + 16).equals(salt)) break;
    [s0, s1] = checksum(wal, at, 8, s0, s1, bigEndian);
    [s0, s1] = checksum(wal, at + FRAME_HEADER, pageSize, s0, s1, bigEndian);
    if (s0 !== wal.readUInt32BE(at + 16) || s1 !== wal.readUInt32BE(at + 20)) break;
    pending.set(wal.readUInt32BE(at), at + FRAME_HEADER);
    const commitSize = wal.readUInt32BE(at + 4);
    if (commitSize > 0) {
      for (const [page, offset] of pending) pages.set(page, offset);
      pending.clear();
      dbPages = commitSize;
    }
  }
  // Pages past the committed size belong to a transaction that shrank the file.
  for (const page of pages.keys()) if (page > dbPages) pages.delete(page);
  return { pageSize, dbPages, pages };
}

/** SQLite's WAL checksum: pairs of 32-bit words in the WAL's byte order, summed into two accumulators. */
function checksum(buf: Buffer, start: number, length: number, s0: number, s1: number, bigEndian: boolean): [number, number] {
  for (let i = start; i < start + length; i += 8) {
    const x0 = bigEndian ? buf.readUInt32BE(i) : buf.readUInt32LE(i);
    const x1 = bigEndian ? buf.readUInt32BE(i + 4) : buf.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

async function readOptional(path: string): Promise<Buffer | null> {
  try {
    return await fs.readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function readHead(path: string, bytes: number): Promise<Buffer | null> {
  const whole = await readOptional(path).catch(() => null);
  return whole && whole.length >= bytes ? whole.subarray(0, bytes) : null;
}

/** The part of sql.js used here (its own types stay inside this module). */
export interface SqlDatabase {
  prepare(sql: string): {
    bind(values: unknown[]): boolean;
    step(): boolean;
    getAsObject(): Record<string, unknown>;
    free(): void;
  };
  close(): void;
}

let sqlJs: Promise<{ Database: new (data: Uint8Array) => SqlDatabase }> | null = null;

/** The snapshot opened in memory: closing it frees the copy; the agent's files were never opened for writing. */
export async function openSnapshot(path: string): Promise<SqlDatabase> {
  const image = await snapshotImage(path);
  // Loaded on the first database only: reading JSON stores never pays for the WebAssembly module.
  sqlJs ??= import('sql.js').then((m) => m.default()) as Promise<{ Database: new (data: Uint8Array) => SqlDatabase }>;
  const SQL = await sqlJs;
  return new SQL.Database(image);
}

/** Every row of a query as objects, `?` bound to `params`. */
export function rows(db: SqlDatabase, sql: string, params: unknown[] = []): Record<string, unknown>[] {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    const out: Record<string, unknown>[] = [];
    while (statement.step()) out.push(statement.getAsObject());
    return out;
  } finally {
    statement.free();
  }
}
