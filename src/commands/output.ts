// Where a payload goes: stdout, or a file written so that no reader ever sees half a report and
// no input is ever overwritten (SPEC "Bad input": refused by device and inode, hard links and
// symbolic links included; written to a temporary file in the same folder, then renamed).

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LoopledgerError, UsageError } from '../errors.js';

/** A payload whole, or in pieces (a renderer that streams). */
export type Payload = string | Iterable<string> | AsyncIterable<string>;

/** `--output-file -` (and no --output-file at all) means stdout. */
export function isStdout(target: string | undefined): target is undefined | '-' {
  return target === undefined || target === '-';
}

/**
 * Refuse `target` when it is the same file as one of `inputs`: same device and inode, so a hard
 * link or a symbolic link to a transcript is caught as well as the transcript's own name.
 * A target that does not exist yet cannot be an input.
 */
export async function refuseInputAsOutput(target: string, inputs: readonly string[], flag = '--output-file'): Promise<void> {
  const out = await fs.stat(target).catch(() => null);
  if (out === null) return;
  for (const input of inputs) {
    if (input === '-') continue;
    const source = await fs.stat(input).catch(() => null);
    if (source !== null && source.dev === out.dev && source.ino === out.ino) {
      const how = input === target ? '' : ` (${input}, by another name)`;
      throw new UsageError(`${flag} ${target} is one of the inputs${how}; refusing to overwrite it`);
    }
  }
}

/**
 * Write `payload` to `target` atomically: into a temporary file beside the real file (the target
 * of a symbolic link, so the link stays a link), then renamed over it. Missing parent folders are
 * created. An existing file keeps its permissions.
 */
export async function writeFileAtomically(target: string, payload: Payload): Promise<void> {
  const real = await fs.realpath(target).catch(() => target);
  const dir = dirname(real);
  const temp = join(dir, `.${basename(real)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  let handle: fs.FileHandle | null = null;
  try {
    await fs.mkdir(dir, { recursive: true });
    const mode = (await fs.stat(real).catch(() => null))?.mode;
    handle = await fs.open(temp, 'wx', mode === undefined ? 0o666 : mode & 0o7777);
    for await (const piece of pieces(payload)) await handle.write(piece);
    // open() is subject to the umask: an existing report keeps exactly the mode it had.
    if (mode !== undefined) await handle.chmod(mode & 0o7777);
    await handle.close();
    handle = null;
    await fs.rename(temp, real);
  } catch (e) {
    await handle?.close().catch(() => {});
    await fs.rm(temp, { force: true }).catch(() => {});
    throw new LoopledgerError(`cannot write ${target}: ${(e as Error).message}`);
  }
}

async function* pieces(payload: Payload): AsyncIterable<string> {
  if (typeof payload === 'string') {
    yield payload;
    return;
  }
  for await (const piece of payload as AsyncIterable<string>) yield piece;
}
