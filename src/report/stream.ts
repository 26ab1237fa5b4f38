// Reports are written in pieces: a ledger of a million entries is too big for one string (V8 caps a
// string near 512 MB) and needlessly big for memory. Renderers yield chunks; these helpers gather
// them into writes of a sensible size and wait for the destination to drain.

export type Chunks = Iterable<string> | AsyncIterable<string>;

/** Writes of about this many characters: few syscalls, and no chunk grows with the ledger. */
const WRITE_CHUNK_CHARS = 64 * 1024;

/** Consecutive small chunks joined into pieces of about `size` characters (never split). */
export async function* batched(chunks: Chunks, size = WRITE_CHUNK_CHARS): AsyncGenerator<string> {
  let parts: string[] = [];
  let length = 0;
  for await (const c of chunks) {
    if (c === '') continue;
    parts.push(c);
    length += c.length;
    if (length >= size) {
      yield parts.join('');
      parts = [];
      length = 0;
    }
  }
  if (length > 0) yield parts.join('');
}

/** The whole payload as one string: for tests and small reports only. */
export async function collect(chunks: Chunks): Promise<string> {
  const parts: string[] = [];
  for await (const c of batched(chunks)) parts.push(c);
  return parts.join('');
}

/** Every chunk written to `out` in order, waiting for `drain` whenever it asks to; `out` stays open. */
export async function writeChunks(out: NodeJS.WritableStream, chunks: Chunks): Promise<void> {
  for await (const c of batched(chunks)) {
    if (out.write(c)) continue;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        out.off('error', fail);
        resolve();
      };
      const fail = (e: unknown) => {
        out.off('drain', done);
        reject(e);
      };
      out.once('drain', done);
      out.once('error', fail);
    });
  }
}
