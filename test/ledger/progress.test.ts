// Result-awareness carried over to text: seed 000 — "The same call with a different answer is
// progress that happens to look alike — an agent polling a build for output issues an identical
// batch every time". Text that repeats while the repeated batch's answers move on is narration of
// that progress: noted, never steered.

import { describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../src/config/registry.js';
import { LedgerBuilder } from '../../src/ledger/build.js';
import { createDetectorFactories } from '../../src/ledger/detectors.js';
import type { SessionLedger } from '../../src/ledger/types.js';
import type { Round } from '../../src/model/transcript.js';

const STATUS = 'The rollout is still in progress, so I will wait a little and then check its status again.';

function poll(rounds: number, answer: (i: number) => string, config = {}): SessionLedger {
  const ledger = new LedgerBuilder({ config: { ...defaultConfigValues(), ...config }, factories: createDetectorFactories() });
  ledger.session({ id: 'poll', path: 'poll.jsonl', format: 'canonical', parent: null });
  ledger.turn('poll', 1, 1);
  for (let i = 1; i <= rounds; i++) {
    const round: Round = {
      turn: 1,
      index: i,
      line: i + 1,
      text: STATUS,
      thinking: [],
      calls: [{ id: `c${i}`, name: 'rollout_status', arguments: { deployment: 'api' } }],
      answers: [{ content: answer(i), isError: false }],
      usage: null,
      model: 'test-model',
      timestamp: null,
    };
    ledger.round('poll', round);
  }
  ledger.end('poll');
  return ledger.sessions()[0]!;
}

describe('text repeated while a polled tool makes progress', () => {
  it('is noted under enforce, never steered, while the answers change', () => {
    const s = poll(7, (i) => `${i} of 8 replicas ready`);
    const text = s.entries.filter((e) => e.detector === 'output');
    expect(text.length).toBeGreaterThan(0);
    for (const e of text) {
      expect(e.intervention.enforce).toBe('noted');
      expect(e.intervention.telemetry).toBe('noted');
      expect(e.evidence['progress']).toBe(true);
    }
    expect(s.outcome.enforce.steers).toBe(0);
  });

  it('the same text with unchanging answers is a loop: it steers (and the tool batch stops)', () => {
    const s = poll(7, () => '0 of 8 replicas ready');
    expect(s.outcome.enforce.stops.length).toBeGreaterThan(0);
    expect(s.entries.some((e) => e.detector === 'output' && e.evidence['progress'] === true)).toBe(false);
  });

  it('ladder.progress_notes_only=false restores steering on the narrated poll', () => {
    const s = poll(7, (i) => `${i} of 8 replicas ready`, { 'ladder.progress_notes_only': false });
    expect(s.outcome.enforce.steers).toBeGreaterThan(0);
  });
});
