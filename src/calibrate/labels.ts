// `--labels FILE`: ground truth for a sweep, written by the person calibrating.
// { "<session id or file name>": "loop" | "clean" | { "label": "loop", "turn": 3, "round": 7 } }
// The file's own keys ($schema, $comment, $labels) are not labels: a session whose id is one of
// them is labelled inside "$labels": { "<any id>": … }, where every key is a session's.
// A label file is typed by hand, so anything it cannot mean is an error naming the entry, not a
// guess: a silently dropped label would shift precision and recall without anyone noticing.

import { ConfigError } from '../errors.js';
import { setOwn } from '../own-key.js';
import { readSideFile, SideFileTooLarge } from '../side-file.js';

/** About 200 bytes a label: room for a few hundred thousand. */
const MAX_LABELS_BYTES = 64 * 1024 * 1024;

type LabelKind = 'loop' | 'clean';

export interface Label {
  label: LabelKind;
  /** For a loop: the 1-based turn where it starts; a stop before it does not count as detecting it. */
  turn: number | null;
}

export type Labels = ReadonlyMap<string, Label>;

/** A labels file's JSON as written (a leading BOM dropped), or a ConfigError naming the file. */
export async function readLabelsJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readSideFile(file, MAX_LABELS_BYTES);
  } catch (e) {
    if (e instanceof SideFileTooLarge) throw new ConfigError(`labels file ${file}: ${e.message}`);
    throw new ConfigError(`cannot read labels file ${file}: ${(e as Error).message}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`labels file ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

export async function loadLabels(file: string): Promise<Labels> {
  return parseLabels(await readLabelsJson(file), file);
}

/** Validate an already-parsed labels object; `name` is what errors call it. */
export function parseLabels(raw: unknown, name = 'labels'): Labels {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(`labels file ${name} must hold a JSON object: { "<session id or file name>": "loop" | "clean" }`);
  }
  const labels = new Map<string, Label>();
  const add = (key: string, value: unknown) => {
    if (labels.has(key)) throw new ConfigError(`labels file ${name}: ${JSON.stringify(key)} is labelled twice (at the top and in "${LABELS_SECTION}")`);
    labels.set(key, parseOne(key, value, name));
  };
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key === LABELS_SECTION && isSection(value)) {
      for (const [id, v] of Object.entries(value)) add(id, v);
    } else if (key !== '$schema' && key !== '$comment') add(key, value);
  }
  return labels;
}

/** Where a session whose id is one of the file's own keys is labelled. */
const LABELS_SECTION = '$labels';
/** The file's own keys at its top: never a session's label there. */
const FILE_KEYS: ReadonlySet<string> = new Set(['$schema', '$comment', LABELS_SECTION]);

/**
 * `"$labels"` holding an object is the section; a file from before it may label a session named
 * "$labels" at the top ("loop", or { "label": …, "turn": … }), and that still reads as a label.
 */
function isSection(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const labelShaped = typeof (value as Record<string, unknown>)['label'] === 'string' && keys.every((k) => k === 'label' || k === 'turn' || k === 'round');
  return !labelShaped;
}

/**
 * Put one label into a labels file's JSON object where `parseLabels` reads it back: at the top,
 * or in "$labels" for an id that is one of the file's own keys. Any id works, "__proto__" too.
 */
export function putLabel(file: Record<string, unknown>, id: string, value: unknown): void {
  if (!FILE_KEYS.has(id)) {
    setOwn(file, id, value);
    return;
  }
  let section = file[LABELS_SECTION];
  if (!isSection(section)) {
    // An old file's label for a session named "$labels" moves into the section with it.
    const old = section;
    section = {};
    if (old !== undefined) setOwn(section as Record<string, unknown>, LABELS_SECTION, old);
    file[LABELS_SECTION] = section;
  }
  setOwn(section as Record<string, unknown>, id, value);
}

function kindOf(value: unknown): LabelKind | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase();
  return v === 'loop' || v === 'clean' ? v : null;
}

function parseOne(key: string, value: unknown, name: string): Label {
  const where = `labels file ${name}: ${JSON.stringify(key)}`;
  const direct = kindOf(value);
  if (direct) return { label: direct, turn: null };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${where}: expected "loop", "clean" or { "label": "loop", "turn": N }`);
  }
  const obj = value as Record<string, unknown>;
  const label = kindOf(obj['label']);
  if (!label) throw new ConfigError(`${where}: "label" must be "loop" or "clean"`);
  // `round` (what `loopledger label` writes beside the turn) is for the reader: the sweep counts turns.
  const round = obj['round'];
  if (round !== undefined && round !== null) {
    if (typeof round !== 'number' || !Number.isInteger(round) || round < 1) {
      throw new ConfigError(`${where}: "round" must be a whole number of at least 1 (rounds are 1-based)`);
    }
    if (label === 'clean') throw new ConfigError(`${where}: "round" marks where a loop starts; a clean session has none`);
  }
  const turn = obj['turn'];
  if (turn === undefined || turn === null) return { label, turn: null };
  if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < 1) {
    throw new ConfigError(`${where}: "turn" must be a whole number of at least 1 (turns are 1-based)`);
  }
  if (label === 'clean') throw new ConfigError(`${where}: "turn" marks where a loop starts; a clean session has none`);
  return { label, turn };
}

function basename(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? path;
}

/** The label key a session answers to: its id first, then its path, then the path's file name. */
export function labelKeyFor(session: { id: string; path: string }, labels: Labels): string | null {
  if (labels.has(session.id)) return session.id;
  if (labels.has(session.path)) return session.path;
  const base = basename(session.path);
  return labels.has(base) ? base : null;
}
