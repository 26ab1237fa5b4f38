// SPEC: "Claude Code lines repeated with the same uuid count once". Only a value shaped like a UUID
// identifies a line (8-4-4-4-12 hex digits, either case); a placeholder shared by many lines (a
// trimmed fixture's) does not. The test is the shape itself, written as a regular expression here
// and as a length and character test in the adapter: the two must agree on every value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../../src/formats/claude-code.js';
import { jsonl, parseWith } from '../helpers/record.js';

const SID = '3d9f6a21-8c4e-4b17-9e02-5a7c1f8b6d40';
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One prompt line, written twice with the same uuid: one turn if the uuid identifies it, else two. */
function turnsOf(uuid: string): number {
  const line = { parentUuid: null, isSidechain: false, userType: 'external', sessionId: SID, type: 'user', message: { role: 'user', content: 'run the tests' }, uuid, timestamp: '2026-01-05T10:00:00.000Z' };
  const reply = (id: string) => ({ sessionId: SID, type: 'assistant', message: { model: 'claude-sonnet-4-5', id, type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, timestamp: '2026-01-05T10:00:01.000Z' });
  const { sessions } = parseWith(claudeCodeAdapter, jsonl([line, reply('m1'), line, reply('m2')]));
  return new Set(sessions[0]!.rounds.map((r) => r.turn)).size;
}

// Characters that sit on either side of each boundary the test checks: digits, a–f, A–F, g/G, `-`, `/`, `:`, '@', '`'.
const near = fc.constantFrom(...'0123456789abcdefABCDEFgG-/:@`{ '.split(''));
const hex = fc.constantFrom(...'0123456789abcdefABCDEF'.split(''));
const block = (n: number) => fc.array(hex, { minLength: n, maxLength: n }).map((a) => a.join(''));
const wellFormed = fc.tuple(block(8), block(4), block(4), block(4), block(12)).map((p) => p.join('-'));
/** A UUID with one character replaced, inserted or removed: mostly not UUIDs, each near the shape. */
const nearMiss = fc.tuple(wellFormed, fc.nat(36), near, fc.constantFrom('replace', 'insert', 'remove')).map(([u, at, c, how]) => {
  const i = Math.min(at, u.length - 1);
  if (how === 'replace') return u.slice(0, i) + c + u.slice(i + 1);
  if (how === 'insert') return u.slice(0, i) + c + u.slice(i);
  return u.slice(0, i) + u.slice(i + 1);
});

describe('claude-code: which uuids identify a line', () => {
  it('a repeated line counts once exactly when its uuid is UUID-shaped', () => {
    fc.assert(
      fc.property(fc.oneof(wellFormed, nearMiss, fc.string({ maxLength: 40 })), (uuid) => {
        expect(turnsOf(uuid)).toBe(UUID_SHAPE.test(uuid) ? 1 : 2);
      }),
      { numRuns: 2000 },
    );
  });

  it('examples: upper-case counts, a placeholder and a dash out of place do not', () => {
    expect(turnsOf('3D9F6A21-8C4E-4B17-9E02-5A7C1F8B6D40')).toBe(1);
    expect(turnsOf('u-1')).toBe(2);
    expect(turnsOf('3d9f6a218-c4e-4b17-9e02-5a7c1f8b6d40')).toBe(2);
    expect(turnsOf('3d9f6a21-8c4e-4b17-9e02-5a7c1f8b6d4g')).toBe(2);
  });
});
