// For random ledgers, built the way the ledger takes rounds (LedgerBuilder, fed Round objects
// that carry `trace` as the otel reader sets it), `--format otlp` always decodes with the
// OpenTelemetry project's own protobuf types, holds exactly one record per ledger entry, and each
// record carries the trace and span ids of the round it judged and no others. Issue 32: "one per
// finding, with the session id and, when the input was a trace, the trace and span ids of the
// round it judged".

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfigValues } from '../../../src/config/registry.js';
import { LedgerBuilder } from '../../../src/ledger/build.js';
import { createDetectorFactories } from '../../../src/ledger/detectors.js';
import { assembleReport } from '../../../src/ledger/summary.js';
import type { LedgerReport } from '../../../src/ledger/types.js';
import type { Round, RoundTrace } from '../../../src/model/transcript.js';
import { renderReport } from '../../../src/index.js';
import { otlpRequests } from '../../../src/report/otlp/records.js';
import { recordsOf, requestsOf, throughProtobuf } from './decode.js';

// What a UTF-8 receiver keeps of a string (a lone surrogate becomes U+FFFD): Node's own encoder says.
const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('utf8');
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const nonZero = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).filter((b) => b.some((x) => x !== 0)).map(hex);
const trace: fc.Arbitrary<RoundTrace> = fc.record({ traceId: nonZero(16), spanId: nonZero(8) });

// Few distinct calls, answers and texts, so that repeats (and so findings) are common.
const step = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      tool: fc.constantFrom('Bash', 'Read', 'Grep'),
      arg: fc.constantFrom('npm test', 'src/a.ts', 'TODO'),
      answer: fc.constantFrom('ok', 'FAIL: 1 test failed', 'no matches'),
      isError: fc.boolean(),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('prose' as const),
      text: fc.constantFrom(
        'Let me run the tests again to see whether the failure persists after the change.',
        'I will check the configuration file once more before trying anything else here.',
        'The build still fails with the same error, so I need to look at the import path.',
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('user' as const) }) },
);

// Session ids as hostile as a transcript may make them: control characters, bidi marks, lone surrogates.
const sessionId = fc.oneof(fc.uuid(), fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }));

const sessionSpec = fc.record({
  id: sessionId,
    // A step repeated up to six times in a row, each round with its own ids or none: loops are common.
  steps: fc.array(fc.record({ step, traces: fc.array(fc.option(trace, { freq: 2 }), { minLength: 1, maxLength: 6 }) }), { minLength: 1, maxLength: 12 }),
});

interface Built {
  report: LedgerReport;
  /** What each round was given: the expected ids, by session index and round. */
  traces: Map<string, RoundTrace | null>;
}

type SessionSpec = typeof sessionSpec extends fc.Arbitrary<infer T> ? T : never;

function build(specs: readonly SessionSpec[]): Built {
  const b = new LedgerBuilder({ config: defaultConfigValues(), factories: createDetectorFactories() });
  const traces = new Map<string, RoundTrace | null>();
  specs.forEach((spec, si) => {
    // Distinct ids per ledger, as a run has them (the property is about records, not id clashes).
    const id = `${si}:${spec.id}`;
    b.session({ id, path: `s${si}.jsonl`, format: 'canonical', parent: null });
    let turn = 1;
    let index = 0;
    b.turn(id, turn, null);
    for (const { step: st, traces: ts } of spec.steps) {
      if (st.kind === 'user') {
        b.turn(id, (turn += 1), null);
        continue;
      }
      for (const t of ts) {
        index += 1;
        const round: Round = {
          turn,
          index,
          line: index,
          text: st.kind === 'prose' ? st.text : '',
          thinking: [],
          calls: st.kind === 'batch' ? [{ id: `c${index}`, name: st.tool, arguments: { q: st.arg } }] : [],
          answers: st.kind === 'batch' ? [{ content: st.answer, isError: st.isError }] : [],
          usage: null,
          model: null,
          timestamp: null,
          ...(t ? { trace: t } : {}),
        };
        traces.set(`${si}#${index}`, t);
        b.round(id, round);
      }
    }
    b.end(id);
  });
  const sessions = b.sessions();
  return { report: assembleReport({ version: '0.1.0', config: defaultConfigValues(), inputs: [], sessions }), traces };
}

describe('--format otlp over random ledgers', () => {
  it('decodes with the OTLP protobuf types, one record per entry, each with its round\'s ids', async () => {
    let linked = 0;
    let unlinked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(sessionSpec, { minLength: 1, maxLength: 4 }), async (specs) => {
        const { report, traces } = build(specs);
        const payload = await renderReport(report, 'otlp', { evaluatedAt: 1_700_000_000_123 });
        const requests = requestsOf(payload);
        for (const r of requests) expect(throughProtobuf(r)).toEqual(r);
        const records = recordsOf(requests);
        const entries = report.sessions.flatMap((s, si) => s.entries.map((e) => ({ s, si, e })));
        expect(records).toHaveLength(entries.length);
        records.forEach((rec, i) => {
          const { s, si, e } = entries[i]!;
          expect(rec.eventName).toBe('gen_ai.evaluation.result');
          expect(rec.timeUnixNano).toBe('1700000000123000000');
          expect(rec.attributes['session.id']).toBe(utf8(s.id));
          expect(rec.attributes['gen_ai.conversation.id']).toBe(utf8(s.id));
          expect(rec.attributes['gen_ai.evaluation.name']).toBe(e.kind);
          expect(rec.attributes['loopledger.round']).toBe(e.round);
          expect(rec.attributes['loopledger.intervention.enforce']).toBe(e.intervention.enforce);
          const given = traces.get(`${si}#${e.round}`) ?? null;
          if (given) linked += 1;
          else unlinked += 1;
          expect(rec.traceId).toBe(given?.traceId);
          expect(rec.spanId).toBe(given?.spanId);
        });
      }),
      { numRuns: 100 },
    );
    // Not vacuous: findings on traced and untraced rounds alike were met.
    expect(linked).toBeGreaterThan(50);
    expect(unlinked).toBeGreaterThan(50);
  }, 120_000);

  it('requests keep to the record and byte caps, in ledger order, and together hold every record once', () => {
    fc.assert(
      fc.property(fc.array(sessionSpec, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1500, max: 9000 }), (specs, maxRecords, maxBytes) => {
        const { report } = build(specs);
        const options = { version: '0.1.0', evaluatedAt: 0, excerpts: false };
        const requests = [...otlpRequests(report, options, maxRecords, maxBytes)];
        for (const r of requests) {
          expect(r.records).toBeLessThanOrEqual(maxRecords);
          // Only a record that alone is over the cap may make a body over it, and then it is alone.
          if (Buffer.byteLength(r.body) > maxBytes) expect(r.records).toBe(1);
        }
        const whole = [...otlpRequests(report, options)];
        expect(whole.length).toBeLessThanOrEqual(1);
        const rounds = (rs: { body: string }[]) => recordsOf(rs.map((r) => JSON.parse(r.body))).map((x) => `${String(x.attributes['session.id'])}#${String(x.attributes['loopledger.round'])}#${String(x.attributes['gen_ai.evaluation.name'])}`);
        expect(rounds(requests)).toEqual(rounds(whole));
      }),
      { numRuns: 100 },
    );
  });
});
