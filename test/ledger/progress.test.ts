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
/** A status paragraph (longer than output.per_round_min_words), re-emitted whole every round. */
const PARAGRAPH =
  'The rollout of the api deployment is still in progress. New pods have to pass their readiness probe before the old ones are drained, ' +
  'so I will wait a little longer and then check the status of the deployment again before I report back.';

function poll(rounds: number, answer: (i: number) => string, config = {}, text = STATUS): SessionLedger {
  const ledger = new LedgerBuilder({ config: { ...defaultConfigValues(), ...config }, factories: createDetectorFactories() });
  ledger.session({ id: 'poll', path: 'poll.jsonl', format: 'canonical', parent: null });
  ledger.turn('poll', 1, 1);
  for (let i = 1; i <= rounds; i++) {
    const round: Round = {
      turn: 1,
      index: i,
      line: i + 1,
      text,
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
    // The one-sentence status is a recurring_phrase by itself (issue 21): noted either way.
    expect(poll(7, (i) => `${i} of 8 replicas ready`, { 'ladder.progress_notes_only': false }).outcome.enforce.steers).toBe(0);
    // A whole paragraph re-emitted each round is an exact block: the progress rule is what holds it.
    const answer = (i: number) => `${i} of 8 replicas ready`;
    expect(poll(7, answer, {}, PARAGRAPH).outcome.enforce.steers).toBe(0);
    const s = poll(7, answer, { 'ladder.progress_notes_only': false }, PARAGRAPH);
    expect(s.outcome.enforce.steers).toBeGreaterThan(0);
    expect(s.entries.some((e) => e.kind === 'exact_block' && e.intervention.enforce === 'steer')).toBe(true);
  });
});
