// `--since` / `--until` (SPEC 0.4 "Time"): which sessions a run keeps, decided on their own times.
// A session is kept when it ran at some moment of the window: it ended at or after `since` and
// started at or before `until`. A session without times cannot be placed and is left out.

import type { SessionLedger } from './types.js';

/** Bounds in milliseconds since the epoch; either may be absent (open). */
export interface SessionWindow {
  sinceMs?: number;
  untilMs?: number;
}

export function inWindow(s: Pick<SessionLedger, 'started_at' | 'ended_at'>, w: SessionWindow): boolean {
  const started = s.started_at ? Date.parse(s.started_at) : NaN;
  const ended = s.ended_at ? Date.parse(s.ended_at) : started;
  if (!Number.isFinite(started) || !Number.isFinite(ended)) return false;
  return (w.sinceMs === undefined || ended >= w.sinceMs) && (w.untilMs === undefined || started <= w.untilMs);
}

/**
 * Whether a file last written at `mtimeMs` may hold a session of the window: a record is written
 * before its file's last change, so a file unchanged since before `since` holds none. (The other
 * bound needs the file's first record, which only reading it tells.)
 */
export function fileMayHold(mtimeMs: number, w: SessionWindow): boolean {
  return w.sinceMs === undefined || mtimeMs >= w.sinceMs;
}
