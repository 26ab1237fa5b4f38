// What the hook keeps between calls for one session (`<session>.state.json`), how a file of it is
// checked before it is resumed, and the records it appends to the session's ledger file. Plain
// JSON, no behaviour: the session's logic is in session.ts, batch.ts, merge.ts and rounds.ts.

import type { Config } from '../config/registry.js';
import type { ResolvedConfig } from '../config/resolved.js';
import type { LadderSettings } from '../ladder/config.js';
import type { PolicyResolver } from '../ladder/policy.js';
import type { LedgerEntry } from '../ledger/types.js';
import type { Mode } from '../vocabulary.js';
import type { Agent } from './payload.js';
import type { TranscriptCursor } from './transcript.js';
import type { TurnSnapshot } from './turn.js';
import { isRecord as isRec } from '../is-record.js';

const STATE_VERSION = 1;

/** How many call ids, lines and aliases are remembered for de-duplication (a few turns' worth). */
const MEMORY = 512;

/** Off never installs the hook. */
export type LiveMode = Exclude<Mode, 'off'>;

export interface GuardConfig {
  mode: LiveMode;
  /** The configuration parsed once, and once per tier scale a turn needs. */
  resolved: ResolvedConfig;
  /** `resolved.config`: the untiered configuration. */
  config: Readonly<Config>;
  settings: LadderSettings;
  policy: PolicyResolver;
}

export interface OpenCall {
  id: string;
  name: string;
  input: unknown;
  /** Made up by the hook (Gemini sends no call id): matched to the transcript by signature. */
  synthetic: boolean;
  /** Seen on stdin (its identity and answer are stdin's). */
  announced: boolean;
  /** `failed`: the answer opened like an error (answerFailed), for recurring_failure. */
  answer: { digest: string; isError: boolean; failed?: boolean } | null;
}

export interface OpenBatch {
  calls: OpenCall[];
  /** The transcript line of the round these calls belong to, when the transcript showed it. */
  line: number | null;
  /** Seed 000 `check` was already asked for this batch before it ran. */
  checked: boolean;
  /** The response's text as stdin gave it (no transcript followed): the round's text when it closes. */
  text?: string;
}

/** Everything the hook keeps between calls for one session. Plain JSON. */
export interface SessionState {
  v: typeof STATE_VERSION;
  agent: Agent;
  session: string;
  cursor: TranscriptCursor | null;
  turn: number;
  /** Rounds closed (fed to the detectors) so far: the ledger's round numbering. */
  rounds: number;
  model: string | null;
  guard: TurnSnapshot | null;
  /** The session-scoped detectors' state (`recurring_failure`), kept across turns; absent in older files. */
  recurring?: unknown;
  open: OpenBatch | null;
  /** Calls of a batch refused before it ran: each is denied when its turn comes. */
  refused: string[];
  denied: string[];
  closedCalls: string[];
  closedLines: number[];
  /** Made-up ids of closed calls not yet recognized in the transcript, with their signatures. */
  aliases: { id: string; sig: string }[];
  /** Hash of a final answer closed from stdin before the transcript showed it. */
  closedText: string | null;
  /** A reminder the last event could not carry (Gemini's BeforeTool): the next one that can does. */
  pendingContext: string | null;
  seq: number;
  turnKey: string | null;
  turnEnded: boolean;
  /** Turns written to the ledger file (user records). */
  ledgerTurns: number;
  /** The ledger file has this state's session header. */
  ledgerStarted: boolean;
}

export function freshState(agent: Agent, session: string): SessionState {
  return {
    v: STATE_VERSION,
    agent,
    session,
    cursor: null,
    turn: 0,
    rounds: 0,
    model: null,
    guard: null,
    recurring: null,
    open: null,
    refused: [],
    denied: [],
    closedCalls: [],
    closedLines: [],
    aliases: [],
    closedText: null,
    pendingContext: null,
    seq: 0,
    turnKey: null,
    turnEnded: false,
    ledgerTurns: 0,
    ledgerStarted: false,
  };
}

const count = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const text = (v: unknown): boolean => typeof v === 'string';
const textOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const listOf = (v: unknown, item: (x: unknown) => boolean): boolean => Array.isArray(v) && v.every(item);
const CURSOR_MODES: readonly string[] = ['jsonl', 'document', 'undecided', 'oversize'];

function cursorProblem(c: unknown): string | null {
  if (c === null) return null;
  if (!isRec(c)) return 'cursor is not an object';
  if (!text(c.path)) return 'cursor.path is not a string';
  for (const k of ['dev', 'ino', 'offset', 'line', 'turns', 'rounds'] as const) {
    if (!count(c[k])) return `cursor.${k} is not a count (${JSON.stringify(c[k])})`;
  }
  if (!textOrNull(c.main)) return 'cursor.main is not a string or null';
  if (!listOf(c.prelude, text)) return 'cursor.prelude is not a list of strings';
  if (!CURSOR_MODES.includes(c.mode as string)) return `cursor.mode is ${JSON.stringify(c.mode)}`;
  if (c.skip !== undefined && typeof c.skip !== 'boolean') return 'cursor.skip is not a boolean';
  return null;
}

function openProblem(o: unknown): string | null {
  if (o === null) return null;
  if (!isRec(o) || !Array.isArray(o.calls)) return 'open is not a batch';
  if (o.line !== null && !count(o.line)) return 'open.line is not a line number';
  if (typeof o.checked !== 'boolean') return 'open.checked is not a boolean';
  if (o.text !== undefined && typeof o.text !== 'string') return 'open.text is not a text';
  for (const c of o.calls as unknown[]) {
    if (!isRec(c) || !text(c.id) || !text(c.name) || typeof c.synthetic !== 'boolean' || typeof c.announced !== 'boolean') return 'open.calls holds something that is not a call';
    const a = c.answer;
    if (a !== null && !(isRec(a) && text(a.digest) && typeof a.isError === 'boolean' && (a.failed === undefined || typeof a.failed === 'boolean'))) {
      return 'open.calls holds an answer of the wrong shape';
    }
  }
  return null;
}

/**
 * What is wrong with a state file's content for this session, or null when it can be resumed.
 * Shapes and ranges only: a hand-edited or half-foreign file is started over, never half-used.
 */
export function stateProblem(raw: unknown, agent: Agent, session: string): string | null {
  if (!isRec(raw)) return 'not a JSON object';
  if (raw.v !== STATE_VERSION) return `version ${JSON.stringify(raw.v)}, not ${STATE_VERSION}`;
  if (raw.agent !== agent || raw.session !== session) return "not this session's";
  for (const k of ['turn', 'rounds', 'seq', 'ledgerTurns'] as const) {
    if (!count(raw[k])) return `${k} is not a count (${JSON.stringify(raw[k])})`;
  }
  for (const k of ['model', 'closedText', 'pendingContext', 'turnKey'] as const) {
    if (!textOrNull(raw[k])) return `${k} is not a string or null`;
  }
  for (const k of ['turnEnded', 'ledgerStarted'] as const) {
    if (typeof raw[k] !== 'boolean') return `${k} is not a boolean`;
  }
  for (const k of ['refused', 'denied', 'closedCalls'] as const) {
    if (!listOf(raw[k], text)) return `${k} is not a list of call ids`;
  }
  if (!listOf(raw.closedLines, count)) return 'closedLines is not a list of line numbers';
  if (!listOf(raw.aliases, (a) => isRec(a) && text(a.id) && text(a.sig))) return 'aliases is not a list of {id, sig}';
  const guard = raw.guard;
  if (guard !== null) {
    if (!isRec(guard) || !count(guard.turn) || !Array.isArray(guard.detectors) || !isRec(guard.enforce)) return 'guard is not a turn snapshot';
    if (typeof guard.scale !== 'number' || !Number.isFinite(guard.scale) || guard.scale <= 0) return 'guard.scale is not a positive number';
  }
  return cursorProblem(raw.cursor) ?? openProblem(raw.open);
}

/** A record for the session's ledger file (canonical JSONL plus `decision` records). */
export type LedgerRecord = Record<string, unknown> | DecisionRecord;

export interface DecisionRecord {
  type: 'decision';
  event: string;
  call_id: string | null;
  mode: LiveMode;
  /** What the hook did about it: `none` under telemetry. */
  action: 'none' | 'deny' | 'steer' | 'stop';
  /** The batch was refused before it ran: it never became a round. */
  refused?: true;
  entry: LedgerEntry;
}

export function remember<T>(list: T[], item: T): void {
  list.push(item);
  if (list.length > MEMORY) list.splice(0, list.length - MEMORY);
}
