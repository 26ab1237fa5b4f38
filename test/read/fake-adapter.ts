// A test-only format: enough of an adapter to watch what the reader hands over, line by line.

import type { FormatAdapter, Probe } from '../../src/formats/types.js';
import type { FormatName } from '../../src/model/transcript.js';

interface Pushed {
  value: unknown;
  line: number | null;
}

export interface FakeAdapter extends FormatAdapter {
  pushed: Pushed[];
  probes: Probe[];
  ended: number;
}

/**
 * Recognizes JSON lines whose first record has `"fake": true`, and documents `{"fake": true, …}`.
 * Each record with a `say` string becomes one round of one session; `{"boom": true}` makes
 * push() throw, as a buggy adapter would.
 */
export function fakeAdapter(name: FormatName = 'canonical', opts: { documentScore?: number } = {}): FakeAdapter {
  const adapter: FakeAdapter = {
    name,
    description: 'test format',
    detection: 'records with "fake": true',
    pushed: [],
    probes: [],
    ended: 0,
    detect(probe) {
      adapter.probes.push(probe);
      if (probe.mode === 'jsonl') {
        const first = probe.records[0] as { fake?: unknown } | undefined;
        return first && !Array.isArray(first) && first.fake === true ? 1 : 0;
      }
      const v = probe.value as { fake?: unknown } | null;
      return v && typeof v === 'object' && !Array.isArray(v) && v.fake === true ? (opts.documentScore ?? 1) : 0;
    },
    open(ctx) {
      const session = ctx.builder.session('s1');
      return {
        push(value, line) {
          adapter.pushed.push({ value, line });
          const v = value as { say?: unknown; boom?: unknown };
          if (v.boom === true) throw new Error('adapter bug');
          if (typeof v.say === 'string') {
            session.round({ line });
            session.text(v.say);
          }
        },
        end() {
          adapter.ended += 1;
        },
      };
    },
  };
  return adapter;
}
