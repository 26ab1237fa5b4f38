// OpenCode at its pinned release writing its store while loopledger reads it (issue 55 item 2):
// the reads see a consistent snapshot each time (never an error, the rounds only grow), and the
// agent is not disturbed (it finishes its run and its store reads as the whole session after).
// Needs the agent: `node test/agents/install-more.mjs opencode` (.ci/run installs it); skipped, saying why, without it.

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { ingestFile } from '../../src/formats/ingest.js';
import type { TranscriptSink } from '../../src/model/transcript.js';
import { record } from './record-more.mjs';

async function roundsIn(db: string): Promise<{ rounds: number; error: string | undefined }> {
  let rounds = 0;
  const sink: TranscriptSink = { session() {}, turn() {}, end() {}, round: () => void (rounds += 1) };
  const summary = await ingestFile(db, sink);
  return { rounds, error: summary.error };
}

describeWith('agent:opencode', 'OpenCode 1.18.33 writing while loopledger reads', () => {
  it('every read is a snapshot of a committed state, and the run completes undisturbed', { timeout: 600_000 }, async () => {
    const reads: { rounds: number; error: string | undefined }[] = [];
    const out = mkdtempSync(join(tmpdir(), 'loopledger-opencode-live-'));
    const result = await record('opencode', out, {
      during: async (store: string, stopped: () => boolean) => {
        const db = join(store, 'opencode.db');
        while (!stopped()) {
          if (existsSync(db)) reads.push(await roundsIn(db));
          await new Promise((r) => setTimeout(r, 200));
        }
      },
    });
    expect(result.status).toBe(0);
    expect(reads.length).toBeGreaterThan(0);
    // Before its first commit the file is empty and then holds no store it knows; never any other error.
    for (const r of reads) expect(r.error === undefined || /no agent store|^empty file$/.test(r.error), r.error).toBe(true);
    for (let i = 1; i < reads.length; i++) expect(reads[i]!.rounds).toBeGreaterThanOrEqual(reads[i - 1]!.rounds);
    expect(await roundsIn(join(out, 'store', 'opencode.db'))).toEqual({ rounds: 5, error: undefined });
  });
});
