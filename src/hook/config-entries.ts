// The entries a files install needs in the agent's own configuration (OpenClaw's plugin entry and
// load path), added and taken back by editing the file's text: every byte outside them stays, and
// uninstall removes exactly what install added (the objects and lists it created with them too).

import { isDeepStrictEqual } from 'node:util';
import type { ConfigEntries, ConfigEntry } from './contract.js';
import { append, applyEdits, type JsonNode, parseSpans, removeItems } from './jsonc-edit.js';
import { readSettings, type SettingsFile, stripComments } from './settings-file.js';
import { isRecord } from '../is-record.js';

/** The value at `keys`, or undefined. */
function at(value: unknown, keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** Whether `entry` is in `config` as install writes it. */
export function hasEntry(config: unknown, entry: ConfigEntry): boolean {
  const found = at(config, entry.keys);
  return entry.item === true ? Array.isArray(found) && found.some((v) => isDeepStrictEqual(v, entry.value)) : isDeepStrictEqual(found, entry.value);
}

/** `config` with `entry` added, or null when a key on the way holds something else than an object (or a list, for an item). */
function withEntry(config: unknown, entry: ConfigEntry): unknown {
  const out = structuredClone(config ?? {});
  let node = out as Record<string, unknown>;
  for (const [n, key] of entry.keys.entries()) {
    const last = n === entry.keys.length - 1;
    const next = node[key];
    if (last && entry.item === true) {
      if (next === undefined) node[key] = [entry.value];
      else if (Array.isArray(next)) next.push(entry.value);
      else return null;
    } else if (last) node[key] = entry.value;
    else if (next === undefined) node = node[key] = {};
    else if (isRecord(next)) node = next;
    else return null;
  }
  return out;
}

/** The key path as OpenClaw's docs write it: `plugins.entries.loopledger`. */
export const keyPath = (entry: ConfigEntry): string => entry.keys.join('.');

/**
 * `text` with `entry` added after the last member of the deepest object on its way that exists
 * (the rest created with it), or null when it cannot be added by editing around what is there.
 */
function addEntryText(text: string, config: unknown, entry: ConfigEntry): string | null {
  const want = withEntry(config, entry);
  if (want === null) return null;
  if (text.trim() === '') return `${JSON.stringify(want, null, 2)}\n`;
  const { json } = stripComments(text);
  let node: JsonNode;
  try {
    node = parseSpans(json);
  } catch {
    return null;
  }
  if (node.kind !== 'object') return null;
  let depth = 0;
  for (; depth < entry.keys.length; depth++) {
    const next = node.members.find((m) => m.key === entry.keys[depth])?.value;
    if (next === undefined) break;
    node = next;
  }
  if (depth === entry.keys.length) {
    // The list is there: the item goes after its last one.
    return entry.item === true && node.kind === 'array' ? applyEdits(text, append(text, node, [entry.value], null), want) : null;
  }
  if (node.kind !== 'object') return null;
  let nested: unknown = entry.item === true ? [entry.value] : entry.value;
  for (let k = entry.keys.length - 1; k > depth; k--) nested = { [entry.keys[k]!]: nested };
  return applyEdits(text, append(text, node, [nested], [entry.keys[depth]!]), want);
}

/** `config` without `entry` and without the objects and lists its removal leaves empty (never the top). */
function withoutEntry(config: unknown, entry: ConfigEntry): unknown {
  const out = structuredClone(config) as Record<string, unknown>;
  const chain: Record<string, unknown>[] = [out];
  for (const key of entry.keys.slice(0, -1)) chain.push(chain.at(-1)![key] as Record<string, unknown>);
  const lastKey = entry.keys.at(-1)!;
  const holder = chain.at(-1)!;
  if (entry.item === true) {
    const list = holder[lastKey] as unknown[];
    list.splice(list.findIndex((v) => isDeepStrictEqual(v, entry.value)), 1);
    if (list.length > 0) return out;
  }
  delete holder[lastKey];
  for (let level = chain.length - 1; level > 0 && Object.keys(chain[level]!).length === 0; level--) delete chain[level - 1]![entry.keys[level - 1]!];
  return out;
}

/** `text` without `entry` (and what its removal empties), or null when a comment sits in the way. */
function removeEntryText(text: string, config: unknown, entry: ConfigEntry): string | null {
  const want = withoutEntry(config, entry);
  const { json } = stripComments(text);
  const chain: JsonNode[] = [parseSpans(json)];
  const index: number[] = [];
  for (const key of entry.keys) {
    const node = chain.at(-1)!;
    const i = node.members.findIndex((m) => m.key === key);
    if (node.kind !== 'object' || i < 0) return null;
    index.push(i);
    chain.push(node.members[i]!.value);
  }
  const members = (node: JsonNode) => node.members.map((m) => ({ start: m.keyStart, end: m.value.end }));
  const list = chain.at(-1)!;
  if (entry.item === true && list.items.length > 1) {
    const i = list.items.findIndex((item) => isDeepStrictEqual(JSON.parse(json.slice(item.start, item.end)), entry.value));
    const cut = i < 0 ? null : removeItems(text, json, list.items, [i]);
    return cut === null ? null : applyEdits(text, cut, want);
  }
  // The member goes, or the outermost object its removal would leave empty (never the top).
  let level = entry.keys.length - 1;
  while (level > 0 && chain[level]!.members.length === 1) level--;
  const cut = removeItems(text, json, members(chain[level]!), [index[level]!]);
  return cut === null ? null : applyEdits(text, cut, want);
}

export interface EntriesPlan {
  file: SettingsFile;
  /** The file's new text, or null when it holds every entry already (or holds none, on removal). */
  text: string | null;
  /** The entries the new text adds (or removes), by their key paths. */
  changed: string[];
  /** Entries left as they are, each with why (a value of the user's own under the same key). */
  kept: string[];
}

/** Reads the agent's configuration. Throws SettingsError. */
export function readConfig(config: ConfigEntries, env: NodeJS.ProcessEnv): SettingsFile {
  return readSettings(config.file(env), true);
}

/**
 * The configuration with each entry added that is not there yet. An object member the user set
 * to anything else is theirs and kept (reported); null text when nothing is to change. Returns
 * null when an entry cannot be added by editing the text.
 */
export function planAdd(file: SettingsFile, entries: readonly ConfigEntry[]): EntriesPlan | null {
  let text = file.text ?? '';
  let value: unknown = file.value;
  const plan: EntriesPlan = { file, text: null, changed: [], kept: [] };
  for (const entry of entries) {
    if (hasEntry(value, entry)) continue;
    if (entry.item !== true && at(value, entry.keys) !== undefined) {
      plan.kept.push(`${keyPath(entry)} holds a value of yours, kept (the guard needs ${JSON.stringify(entry.value)} there)`);
      continue;
    }
    const next = addEntryText(text, value, entry);
    if (next === null) return null;
    text = next;
    value = withEntry(value, entry);
    plan.changed.push(keyPath(entry));
  }
  if (plan.changed.length > 0) plan.text = text;
  return plan;
}

/** The configuration without the entries install added (those still exactly as it wrote them), last added first. */
export function planRemove(file: SettingsFile, entries: readonly ConfigEntry[]): EntriesPlan | null {
  const plan: EntriesPlan = { file, text: null, changed: [], kept: [] };
  if (file.text === null) return plan;
  let text = file.text;
  let value: unknown = file.value;
  for (const entry of [...entries].reverse()) {
    if (!hasEntry(value, entry)) {
      if (entry.item !== true && at(value, entry.keys) !== undefined) plan.kept.push(`${keyPath(entry)} is not as \`hook install\` writes it, kept`);
      continue;
    }
    const next = removeEntryText(text, value, entry);
    if (next === null) return null;
    text = next;
    value = withoutEntry(value, entry);
    plan.changed.push(keyPath(entry));
  }
  if (plan.changed.length > 0) plan.text = text;
  return plan;
}
