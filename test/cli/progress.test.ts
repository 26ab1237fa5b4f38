// Issue 56 item 4: "The progress line names the file it is on after two seconds."

import { afterEach, describe, expect, it, vi } from 'vitest';
import { startProgress } from '../../src/commands/progress.js';

afterEach(() => vi.useRealTimers());

function terminal() {
  const written: string[] = [];
  return { written, stream: { isTTY: true, write: (s: string) => (written.push(s), true) } };
}

describe('the progress line', () => {
  it('names the file it is on once the line has not moved for two seconds, and not before', () => {
    vi.useFakeTimers();
    const t = terminal();
    const progress = startProgress(t.stream, {}, false)!;
    progress.update(0, 25, '/home/me/.claude/projects/x/big-session.jsonl');
    progress.update(23, 25, '/home/me/data/huge.jsonl');
    vi.advanceTimersByTime(1500);
    expect(t.written.join('')).not.toContain('huge.jsonl');
    vi.advanceTimersByTime(1500);
    expect(t.written.at(-1)).toBe('\r\u001b[Kloopledger: 23/25 files (92%) · on huge.jsonl');
    progress.finish();
    const after = t.written.length;
    vi.advanceTimersByTime(5000);
    expect(t.written.length).toBe(after + 0);
  });

  it('names nothing in a pipe, under CI or with --quiet', () => {
    expect(startProgress({ isTTY: false, write: () => true }, {}, false)).toBeNull();
    expect(startProgress(terminal().stream, { CI: 'true' }, false)).toBeNull();
    expect(startProgress(terminal().stream, {}, true)).toBeNull();
  });
});
