// Rewriting a file its owner keeps (an agent's settings, Codex's config.toml, judge.cache) the way
// they keep it: through a symbolic link (dotfiles repositories link them), with its permissions
// (a 0600 file holding tokens stays 0600) and owner, and never over a file marked read-only. A
// temporary file beside the target, renamed over it, so a reader never sees half a file.

import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, fchmodSync, fchownSync, lstatSync, mkdirSync, openSync, readlinkSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export class FileWriteError extends Error {}

/**
 * `path` with its symbolic links followed, even a dangling one (the link's target is where the
 * file will be created): writing beside the link would replace the link with a regular file.
 */
export function followLinks(path: string): string {
  let current = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    let isLink: boolean;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      return current;
    }
    if (!isLink) return current;
    current = resolve(dirname(current), readlinkSync(current));
  }
  throw new FileWriteError('too many levels of symbolic links');
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why `target` (links already followed) cannot be replaced, or null when it can: checked before
 * anything is written, so a refusal leaves every file as it was. A file without any write bit is
 * refused even for root, who could write it: its owner marked it read-only.
 */
export function whyNotReplaceable(target: string): string | null {
  try {
    const st = statSync(target);
    if (!st.isFile()) return 'not a regular file';
    if ((st.mode & 0o222) === 0) return `it is read-only (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}): make it writable (chmod u+w) for loopledger to change it`;
    accessSync(target, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return 'it is not writable';
    if (code !== 'ENOENT') return `cannot read it (${(e as Error).message})`;
  }
  // The temporary file and the rename need the folder; a missing one is made in its nearest parent.
  let dir = dirname(target);
  for (;;) {
    try {
      if (!statSync(dir).isDirectory()) return `${dir} is not a folder`;
      return canWrite(dir) ? null : `its folder ${dir} is not writable`;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') return code === 'ENOTDIR' ? `${dir} is not a folder` : `cannot reach its folder (${(e as Error).message})`;
      if (dirname(dir) === dir) return `${dir} does not exist`;
      dir = dirname(dir);
    }
  }
}

/**
 * Write `text` to `target` atomically (a temporary file beside it, renamed over it), with
 * `mode` set exactly (open() is subject to the umask) and the previous owner kept. The rename
 * replaces whatever is at `target` without following it, so a planted link at a backup's name is
 * replaced, not written through.
 */
export function writeAtomically(target: string, text: string, mode: number | null, owner: { uid: number; gid: number } | null = null): void {
  const dir = dirname(target);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', mode ?? 0o666);
  try {
    writeSync(fd, text);
    if (mode !== null) fchmodSync(fd, mode);
    if (owner !== null && process.getuid?.() === 0) fchownSync(fd, owner.uid, owner.gid);
  } catch (e) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(temp, target);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}

/** What a file's rewrite must keep: where its bytes are, its mode and owner (null: a new file). */
export interface InPlace {
  target: string;
  mode: number | null;
  owner: { uid: number; gid: number } | null;
}

/** `path` as it will be rewritten in place; throws FileWriteError when it cannot be. */
export function inPlace(path: string): InPlace {
  const target = followLinks(path);
  const why = whyNotReplaceable(target);
  if (why !== null) throw new FileWriteError(why);
  try {
    const st = statSync(target);
    return { target, mode: st.mode & 0o7777, owner: { uid: st.uid, gid: st.gid } };
  } catch {
    return { target, mode: null, owner: null };
  }
}

/** Replace the content of the file at `path` in place (see the top of this file). */
export function replaceInPlace(file: InPlace, text: string): void {
  try {
    writeAtomically(file.target, text, file.mode, file.owner);
  } catch (e) {
    throw new FileWriteError(`cannot write it (${(e as Error).message})`);
  }
}
