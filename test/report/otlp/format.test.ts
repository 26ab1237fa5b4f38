// `--format otlp` through the built binary, against what `--format json` says of the same run:
// one record per entry with the entry's own verdicts, never transcript text beyond the excerpts
// `--excerpts` shows (issue 32: "never the transcript text beyond the excerpts the other formats
// show"), and the run's time on every record.

import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, scratch } from '../../cli/helpers.js';
import { recordsOf, requestsOf, throughProtobuf } from './decode.js';

// A chant: the same paragraphs over and over, so its excerpts are transcript text.
const CHANT = 'fixtures/calibration/anthropic/loop-chant-export.json';

interface JsonEntry {
  kind: string;
  round: number;
  confidence: number | null;
  intervention: { off: string; telemetry: string; enforce: string };
  excerpts?: string[];
}
interface JsonLedger {
  sessions: { id: string; entries: JsonEntry[] }[];
}

beforeAll(() => ensureBuilt(), 120_000);

describe('--format otlp against --format json', () => {
  it('one record per entry, in ledger order, with its kind, confidence, verdicts and session', async () => {
    const env = { SOURCE_DATE_EPOCH: '1700000000' };
    const json = JSON.parse((await runCli(['fixtures/claude-code', CHANT, '--format', 'json'], { env })).stdout) as JsonLedger;
    const out = await runCli(['fixtures/claude-code', CHANT, '--format', 'otlp'], { env });
    expect(out.code).toBe(0);
    const requests = requestsOf(out.stdout);
    for (const r of requests) expect(throughProtobuf(r)).toEqual(r);
    const records = recordsOf(requests);
    const entries = json.sessions.flatMap((s) => s.entries.map((e) => ({ s, e })));
    expect(entries.length).toBeGreaterThan(5);
    expect(records).toHaveLength(entries.length);
    records.forEach((rec, i) => {
      const { s, e } = entries[i]!;
      expect(rec.attributes['session.id']).toBe(s.id);
      expect(rec.attributes['gen_ai.evaluation.name']).toBe(e.kind);
      expect(rec.attributes['gen_ai.evaluation.score.value']).toBe(e.confidence ?? undefined);
      expect(rec.attributes['gen_ai.evaluation.score.label']).toBe(e.intervention.enforce);
      expect(rec.attributes['loopledger.intervention.telemetry']).toBe(e.intervention.telemetry);
      expect(rec.attributes['loopledger.round']).toBe(e.round);
      expect(rec.timeUnixNano).toBe('1700000000000000000');
      // None of these inputs is a trace: no record claims a span.
      expect(rec.traceId).toBeUndefined();
    });
  }, 60_000);

  it('transcript text only with --excerpts, and then exactly the excerpts --format json shows', async () => {
    const withExcerpts = JSON.parse((await runCli([CHANT, '--format', 'json', '--excerpts'])).stdout) as JsonLedger;
    const excerpts = withExcerpts.sessions.flatMap((s) => s.entries.map((e) => e.excerpts ?? []));
    const texts = [...new Set(excerpts.flat())].filter((t) => t.length >= 20);
    expect(texts.length).toBeGreaterThan(0);

    const plain = (await runCli([CHANT, '--format', 'otlp'])).stdout;
    for (const t of texts) expect(plain).not.toContain(JSON.stringify(t).slice(1, -1));
    expect(recordsOf(requestsOf(plain)).every((r) => r.attributes['loopledger.excerpts'] === undefined)).toBe(true);

    const asked = recordsOf(requestsOf((await runCli([CHANT, '--format', 'otlp', '--excerpts'])).stdout));
    expect(asked.map((r) => r.attributes['loopledger.excerpts'] ?? [])).toEqual(excerpts);
  }, 60_000);

  it('without SOURCE_DATE_EPOCH the records carry the time of the run', async () => {
    const before = BigInt(Date.now()) * 1_000_000n;
    const out = await runCli([CHANT, '--format', 'otlp'], { env: { SOURCE_DATE_EPOCH: undefined } });
    const after = BigInt(Date.now()) * 1_000_000n;
    for (const r of recordsOf(requestsOf(out.stdout))) {
      expect(BigInt(r.timeUnixNano) >= before && BigInt(r.timeUnixNano) <= after).toBe(true);
    }
  }, 30_000);

  it('a SOURCE_DATE_EPOCH the records cannot carry is a usage error, before anything is read (issue 53)', async () => {
    // Before: 99999999999 gave a timeUnixNano past uint64, and "abc" silently fell back to now.
    for (const value of ['99999999999', '18446744074', 'abc', '-5', '1.5', '1e9']) {
      const out = await runCli([CHANT, '--format', 'otlp'], { env: { SOURCE_DATE_EPOCH: value } });
      expect(out.code, value).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toBe(
        `loopledger: SOURCE_DATE_EPOCH=${JSON.stringify(value)} is not a whole number of seconds from 0 to 18446744073 ` +
          "(the records' timeUnixNano is a uint64 of nanoseconds): set it as `date +%s` prints, or unset it\n",
      );
    }
    // The last second that fits, and an empty value (unset): records as usual.
    const last = await runCli([CHANT, '--format', 'otlp'], { env: { SOURCE_DATE_EPOCH: '18446744073' } });
    expect(last.code, last.stderr).toBe(0);
    for (const r of recordsOf(requestsOf(last.stdout))) expect(BigInt(r.timeUnixNano) <= 2n ** 64n - 1n).toBe(true);
    expect((await runCli([CHANT, '--format', 'otlp'], { env: { SOURCE_DATE_EPOCH: '' } })).code).toBe(0);
    // A format that carries no time does not read it.
    expect((await runCli([CHANT], { env: { SOURCE_DATE_EPOCH: 'abc' } })).code).toBe(0);
  }, 60_000);

  it('no findings, no line', async () => {
    const out = await runCli(['fixtures/claude-code/calm-readme-update.jsonl', '--format', 'otlp']);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe('');
  }, 30_000);

  it('merge: a ledger whose entries carry trace ids writes them as the records\' ids (hex lowercased; an all-zero id links nothing); a malformed one is refused', async () => {
    const dir = scratch('loopledger-otlp-');
    try {
      const ledger = JSON.parse((await runCli(['fixtures/claude-code/looping-test-fix.jsonl', '--format', 'json'])).stdout) as {
        sessions: { entries: { trace?: unknown }[] }[];
      };
      const [a, b, c] = ledger.sessions[0]!.entries;
      a!.trace = { trace_id: '0AF7651916CD43DD8448EB211C80319C', span_id: 'B7AD6B7169203331' };
      b!.trace = { trace_id: '0'.repeat(32), span_id: 'b7ad6b7169203331' };
      expect(c!.trace).toBeUndefined();
      const good = dir.write('traced.json', JSON.stringify(ledger));
      const out = await runCli(['merge', good, '--format', 'otlp']);
      expect(out.code).toBe(0);
      const records = recordsOf(requestsOf(out.stdout));
      expect(records.map((r) => [r.traceId, r.spanId])).toEqual([
        ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'],
        [undefined, undefined],
        [undefined, undefined],
      ]);
      c!.trace = { trace_id: 'xyz', span_id: 'b7ad6b7169203331' };
      const bad = dir.write('bad.json', JSON.stringify(ledger));
      const refused = await runCli(['merge', bad, '--format', 'otlp']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('sessions[0].entries[2].trace.trace_id: expected 32 hex digits, got "xyz"');
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});
