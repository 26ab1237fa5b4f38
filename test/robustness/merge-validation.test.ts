// Issue 27.16 and 27.17: `merge` trusts no number it reads. Each shard is checked (types, ranges,
// finite non-negative numbers, each session's totals against its entries, each input's session
// count, the summary against the sessions) and refused with exit 2 naming the file and the field's
// JSON path, never "internal error"; a session given twice is counted once, known by its content;
// and a 100k-deep value does not overflow the stack (200k sessions: merge-many-sessions.test.ts).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerReport, SessionLedger } from '../../src/ledger/types.js';
import { ROOT, runMain, scratch } from './helpers.js';

const tmp = scratch('loopledger-merge-check-');
afterAll(() => tmp.cleanup());

type Json = Record<string, unknown>;
let ledgerText = '';
let ledger: LedgerReport;

beforeAll(async () => {
  // Relative paths, as a run from the repository root names them (the cwd of the test).
  const r = await runMain(['fixtures/claude-code', 'fixtures/openai', 'fixtures/codex', '--format', 'json', '--verbose', '--explain'], { timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  ledgerText = r.stdout;
  ledger = JSON.parse(ledgerText) as LedgerReport;
}, 120_000);

function editedFile(name: string, edit: (j: Json) => void): string {
  const j = JSON.parse(ledgerText) as Json;
  edit(j);
  const file = join(tmp.dir, name);
  writeFileSync(file, JSON.stringify(j, null, 2));
  return file;
}

const sessions = (j: Json) => j['sessions'] as Json[];
/** The first session for which `pick` holds, and its index. */
function sessionWhere(j: Json, pick: (s: SessionLedger) => boolean): [Json, number] {
  const i = (j['sessions'] as SessionLedger[]).findIndex(pick);
  expect(i, 'the fixtures hold such a session').toBeGreaterThanOrEqual(0);
  return [sessions(j)[i]!, i];
}

async function refused(file: string, message: RegExp): Promise<string> {
  const r = await runMain(['merge', file]);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(r.stderr).toContain(file);
  expect(r.stderr).toMatch(message);
  return r.stderr;
}

describe('each field is checked, and the refusal names the file and the JSON path', () => {
  it('negative tokens', async () => {
    const file = editedFile('negative.json', (j) => {
      const [s] = sessionWhere(j, (x) => x.usage !== undefined);
      (s['usage'] as Json)['input_tokens'] = -5;
    });
    await refused(file, /sessions\[\d+\]\.usage\.input_tokens: expected a finite number from 0 to \d+, got -5/);
  });

  it('1e308 dollars', async () => {
    const file = editedFile('huge.json', (j) => {
      const [s] = sessionWhere(j, (x) => typeof x.cost?.usd === 'number');
      (s['cost'] as Json)['usd'] = 1e308;
    });
    await refused(file, /sessions\[\d+\]\.cost\.usd: expected a finite number from 0 to \d+, got 1e\+308/);
  });

  it('saved.usd 12345 in a session that cost cents ("about $12,345", exit 0, before)', async () => {
    const file = editedFile('saved.json', (j) => {
      const [s] = sessionWhere(j, (x) => (x.outcome.enforce.saved?.rounds ?? 0) > 0 && typeof x.cost?.usd === 'number' && x.cost.usd < 100);
      ((s['outcome'] as Json)['enforce'] as Json)['saved'] = { ...(((s['outcome'] as Json)['enforce'] as Json)['saved'] as Json), usd: 12345 };
    });
    await refused(file, /sessions\[\d+\]\.outcome\.enforce\.saved\.usd: expected at most the session's cost, [\d.]+, got 12345/);
  });

  it('wrong types: a string for a count, a number for a list, an object for a string', async () => {
    await refused(editedFile('turns.json', (j) => (sessions(j)[0]!['turns'] = '3')), /sessions\[0\]\.turns: expected an integer ≥ 0, got "3"/);
    await refused(editedFile('entries.json', (j) => (sessions(j)[0]!['entries'] = 7)), /sessions\[0\]\.entries: expected a list, got 7/);
    await refused(editedFile('id.json', (j) => (sessions(j)[0]!['id'] = { a: 1 })), /sessions\[0\]\.id: expected a string, got an object/);
    await refused(
      editedFile('level.json', (j) => {
        const [s] = sessionWhere(j, (x) => x.entries.length > 0);
        ((s['entries'] as Json[])[0]!['intervention'] as Json)['enforce'] = 'explode';
      }),
      /sessions\[\d+\]\.entries\[0\]\.intervention\.enforce: expected one of none, noted, steer, stop, got "explode"/,
    );
  });

  it("a session's totals against its entries: steers, stops, an entry past the last round, usage.tokens", async () => {
    await refused(
      editedFile('steers.json', (j) => (((sessions(j)[0]!['outcome'] as Json)['enforce'] as Json)['steers'] = 40)),
      /sessions\[0\]\.outcome\.enforce\.steers: expected \d+, the entries that steer, got 40/,
    );
    await refused(
      editedFile('stops.json', (j) => {
        const [s] = sessionWhere(j, (x) => x.outcome.enforce.stops.length > 0);
        ((s['outcome'] as Json)['enforce'] as Json)['stops'] = [];
      }),
      /sessions\[\d+\]\.outcome\.enforce\.stops: expected \d+ stops, the entries that stop/,
    );
    await refused(
      editedFile('round.json', (j) => {
        const [s] = sessionWhere(j, (x) => x.entries.length > 0);
        (s['entries'] as Json[])[0]!['round'] = (s['rounds'] as number) + 1;
      }),
      /sessions\[\d+\]\.entries\[0\]\.round: expected at most the session's \d+ rounds/,
    );
    await refused(
      editedFile('tokens.json', (j) => {
        const [s] = sessionWhere(j, (x) => (x.usage?.tokens ?? 0) > 0);
        (s['usage'] as Json)['tokens'] = ((s['usage'] as Json)['tokens'] as number) * 2;
      }),
      /sessions\[\d+\]\.usage\.tokens: expected \d+, the sum of input, cache and output tokens/,
    );
  });

  it('the summary against its sessions', async () => {
    await refused(
      editedFile('summary.json', (j) => (((j['summary'] as Json)['cost'] as Json)['usd'] = 12345)),
      /summary\.cost\.usd: expected [\d.]+, what its sessions add up to, got 12345/,
    );
    await refused(editedFile('rounds.json', (j) => ((j['summary'] as Json)['rounds'] = 1)), /summary\.rounds: expected \d+, what its sessions add up to, got 1/);
  });

  it('summary.loop_shapes against its sessions: as written it merges, element by element; an edited row is refused', async () => {
    const asWritten = await runMain(['merge', editedFile('shapes-intact.json', () => {}), '--format', 'json']);
    expect(asWritten.code, asWritten.stderr).toBe(0);
    expect((JSON.parse(asWritten.stdout) as LedgerReport).summary.loop_shapes).toEqual(ledger.summary.loop_shapes);
    expect(ledger.summary.loop_shapes!.length).toBeGreaterThan(0);
    await refused(
      editedFile('shapes.json', (j) => ((((j['summary'] as Json)['loop_shapes'] as Json[])[0]!)['rounds'] = 999)),
      /summary\.loop_shapes\[0\]\.rounds: expected \d+, what its sessions add up to, got 999/,
    );
  });

  it('a session pushed twice into one ledger, or a file listed twice', async () => {
    await refused(editedFile('pushed.json', (j) => sessions(j).push(structuredClone(sessions(j)[0]!))), /inputs\[\d+\]\.sessions: expected 2, the sessions with its path, got 1/);
    await refused(
      editedFile('listed.json', (j) => (j['inputs'] as Json[]).push(structuredClone((j['inputs'] as Json[])[0]!))),
      /inputs\[\d+\]\.path: expected each file once, but it is listed twice/,
    );
  });

  it('any field replaced by any value: exit 0, or exit 2 naming the file; never internal error (property)', async () => {
    // The paths of every field of the ledger, to pick one and put a random value there.
    const paths: (string | number)[][] = [];
    const collect = (v: unknown, at: (string | number)[]) => {
      if (at.length > 0 && at[0] !== 'config') paths.push(at);
      if (Array.isArray(v)) v.slice(0, 3).forEach((x, i) => collect(x, [...at, i]));
      else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) if (at.length < 7) collect(x, [...at, k]);
    };
    collect(ledger, []);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.oneof(fc.jsonValue(), fc.constantFrom(-1, 1e308, -0.5, 2 ** 53, '', null)), async (path, value) => {
        const file = editedFile(`fuzz-${n++ % 4}.json`, (j) => {
          let node = j as unknown as Record<string | number, unknown>;
          for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
          node[path[path.length - 1]!] = value;
        });
        const r = await runMain(['merge', file, '--format', 'json']);
        expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
        expect([0, 2]).toContain(r.code);
        if (r.code === 2) expect(r.stderr).toContain(file);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

describe('a session is known by its content, not by how its path is spelled', () => {
  it('the same ledger given by a relative and an absolute path: counted once, the same ledger', async () => {
    const file = join(tmp.dir, 'whole.json');
    writeFileSync(file, ledgerText);
    const other = editedFile('spelled.json', (j) => {
      const abs = (p: string) => join(ROOT, p);
      for (const i of j['inputs'] as Json[]) i['path'] = abs(i['path'] as string);
      for (const s of sessions(j)) s['path'] = abs(s['path'] as string);
    });
    const r = await runMain(['merge', other, file, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(ledgerText);
    expect(r.stderr).toMatch(/by another name \(and \d+ more\): the same content, counted once/);
  });

  it('the same path with other content in two ledgers: refused, naming both', async () => {
    const file = join(tmp.dir, 'whole2.json');
    writeFileSync(file, ledgerText);
    const other = editedFile('other.json', (j) => (sessions(j)[0]!['model'] = 'a-different-model'));
    const r = await runMain(['merge', file, other]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is in both .*whole2\.json and .*other\.json, and they disagree about it \(session [^:]+: model\)/);
  });
});

describe('large merges', () => {
  it('a 100k-deep evidence array is refused with its path, not a stack overflow in --format json', async () => {
    const depth = 100_000;
    const text = ledgerText.replace(/"evidence": \{/, `"evidence": {"deep": ${'['.repeat(depth)}${']'.repeat(depth)},`);
    expect(text).not.toBe(ledgerText);
    const file = join(tmp.dir, 'deep.json');
    writeFileSync(file, text);
    const stderr = await refused(file, /sessions\[\d+\]\.entries\[\d+\]\.evidence\.deep(\[0\])+: nested deeper than 64 levels, which no ledger is/);
    expect(stderr.length).toBeLessThan(2000);
    expect(readFileSync(file, 'utf8').length).toBeGreaterThan(2 * depth);
  });
});
