// `config --write FILE`: lay checked values into a configuration file's JSON object. The person's
// file keeps its shape (flat dotted keys, nested sections, a `loop_detection` wrapper, comments):
// a value already in the file is replaced where it is, a new one goes into the deepest section the
// file already has for it, and only otherwise becomes a flat dotted key at the top.

import type { ConfigValue } from './spec.js';
import { isRecord } from '../is-record.js';

export interface ConfigAssignment {
  key: string;
  value: ConfigValue;
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return isRecord(v);
}

/** The objects a setting can live under: the top, and the seed's wrappers when the file has them. */
function roots(file: JsonObject): JsonObject[] {
  const out: JsonObject[] = [file];
  const ai = file['ai'];
  if (isObject(ai) && isObject(ai['loop_detection'])) out.push(ai['loop_detection']);
  if (isObject(file['loop_detection'])) out.push(file['loop_detection']);
  return out;
}

/** Every place under `root` whose dotted path (flat, nested or mixed) spells `key`. */
function placesOf(root: JsonObject, key: string): { holder: JsonObject; name: string }[] {
  const found: { holder: JsonObject; name: string }[] = [];
  const walk = (obj: JsonObject, rest: string) => {
    for (const name of Object.keys(obj)) {
      if (name === rest) found.push({ holder: obj, name });
      else if (rest.startsWith(`${name}.`) && isObject(obj[name])) walk(obj[name], rest.slice(name.length + 1));
    }
  };
  walk(root, key);
  return found;
}

/** The deepest existing section for `key`, and what is left of the key below it. */
function deepestSection(root: JsonObject, key: string): { holder: JsonObject; rest: string; depth: number } {
  const parts = key.split('.');
  let holder = root;
  let depth = 0;
  while (depth < parts.length - 1 && isObject(holder[parts[depth]!])) {
    holder = holder[parts[depth]!] as JsonObject;
    depth++;
  }
  return { holder, rest: parts.slice(depth).join('.'), depth };
}

/**
 * A copy of `file` with each assignment in place. The values are already checked (parseConfigValue);
 * the caller checks the whole result again with the loader before writing it.
 */
export function assignConfigValues(file: JsonObject, assignments: readonly ConfigAssignment[]): JsonObject {
  const copy = structuredClone(file);
  for (const { key, value } of assignments) {
    const existing = roots(copy).flatMap((r) => placesOf(r, key));
    if (existing.length > 0) {
      for (const place of existing) place.holder[place.name] = value;
      continue;
    }
    // A file written inside a wrapper keeps new keys inside it too.
    const candidates = roots(copy).map((r) => deepestSection(r, key));
    let best = candidates[candidates.length - 1]!;
    for (const c of candidates) if (c.depth > best.depth) best = c;
    best.holder[best.rest] = value;
  }
  return copy;
}
