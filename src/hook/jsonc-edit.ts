// The guard merged into an agent's settings file by editing its text, never by rewriting it from
// its parse (which would drop Gemini CLI's comments, reorder nothing but round a number past 2^53,
// and reformat the whole file): new groups and events are inserted, an existing guard handler is
// changed member by member (when no comment sits inside it), a second guard is cut out with its
// comma; every other byte the owner wrote stays where it was. The edit is accepted only when the
// edited text reads back as exactly the merged settings.

import { isDeepStrictEqual } from 'node:util';
import { parseWithComments, stripComments } from './settings-file.js';

interface Member {
  key: string;
  keyStart: number;
  value: JsonNode;
}

export interface JsonNode {
  start: number;
  end: number;
  kind: 'object' | 'array' | 'scalar';
  members: Member[];
  items: JsonNode[];
}

/** Value spans over JSON whose comments were blanked (same offsets as the original text). */
export function parseSpans(json: string): JsonNode {
  let i = 0;
  const skip = () => {
    while (i < json.length && /\s/.test(json[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < json.length && json[i] !== '"') i += json[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(json.slice(start, i)) as string;
  };
  const value = (): JsonNode => {
    skip();
    const start = i;
    const node: JsonNode = { start, end: start, kind: 'scalar', members: [], items: [] };
    if (json[i] === '{' || json[i] === '[') {
      const object = json[i] === '{';
      node.kind = object ? 'object' : 'array';
      i++;
      skip();
      while (json[i] !== (object ? '}' : ']')) {
        if (object) {
          skip();
          const keyStart = i;
          const key = string();
          skip();
          i++; // ':'
          node.members.push({ key, keyStart, value: value() });
        } else node.items.push(value());
        skip();
        if (json[i] === ',') i++;
        skip();
      }
      i++;
    } else if (json[i] === '"') string();
    else while (i < json.length && !/[\s,\]}]/.test(json[i]!)) i++;
    node.end = i;
    return node;
  };
  return value();
}

/** Replace [at, end) with text (end = at: an insertion). */
export interface Insertion {
  at: number;
  end?: number;
  text: string;
}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/**
 * Insert `entries` (rendered JSON: object members `"k": v` or array items) at the end of
 * `container`, laid out like its last entry: on a line of their own at its indentation, or inline
 * when the container is written on one line. A line comment after the last entry stays with it.
 */
export function append(text: string, container: JsonNode, entries: unknown[], keys: string[] | null): Insertion[] {
  const last = container.kind === 'object' ? container.members.at(-1) : undefined;
  const lastEntry = container.kind === 'object' ? last?.value : container.items.at(-1);
  const lastStart = container.kind === 'object' ? last?.keyStart : lastEntry?.start;
  const render = (pretty: boolean, indent: string) =>
    entries.map((e, n) => {
      const body = pretty ? JSON.stringify(e, null, 2).replace(/\n/g, `\n${indent}`) : JSON.stringify(e);
      return keys === null ? body : `${JSON.stringify(keys[n])}: ${body}`;
    });
  if (lastEntry === undefined || lastStart === undefined) {
    // An empty container: the entries inline, between its brackets.
    return [{ at: container.start + 1, text: render(false, '').join(', ') }];
  }
  const inline = lineStart(text, lastStart) <= container.start;
  if (inline) return [{ at: lastEntry.end, text: `, ${render(false, '').join(', ')}` }];
  const indent = /^[ \t]*/.exec(text.slice(lineStart(text, lastStart)))![0];
  const body = render(true, indent).map((e) => `\n${indent}${e}`).join(',');
  const restOfLine = /^[^\n]*/.exec(text.slice(lastEntry.end))![0];
  // `"a": 1 // why`: the comma goes after the value, the new entries after the comment.
  if (/^[ \t]*\/\/.*$/.test(restOfLine)) return [{ at: lastEntry.end, text: ',' }, { at: lastEntry.end + restOfLine.length, text: body }];
  return [{ at: lastEntry.end, text: `,${body}` }];
}

/**
 * Delete items of `array` (their indexes, ascending) with the commas that separated them. Where
 * no comment sits around them, the whitespace goes too (the layout closes up); else only the items
 * and their commas go and every comment stays. null when a comment sits inside an item.
 */
export function removeItems(text: string, json: string, items: readonly { start: number; end: number }[], indexes: number[]): Insertion[] | null {
  const out: Insertion[] = [];
  const plain = (from: number, to: number) => text.slice(from, to) === json.slice(from, to);
  const commaAfter = (k: number) => json.indexOf(',', items[k]!.end);
  for (let n = 0; n < indexes.length; ) {
    let m = n;
    while (m + 1 < indexes.length && indexes[m + 1] === indexes[m]! + 1) m++;
    const a = indexes[n]!;
    const b = indexes[m]!;
    n = m + 1;
    for (let k = a; k <= b; k++) if (!plain(items[k]!.start, items[k]!.end)) return null;
    const last = b + 1 >= items.length;
    const span = !last ? [items[a]!.start, items[b + 1]!.start] : a > 0 ? [items[a - 1]!.end, items[b]!.end] : [items[a]!.start, items[b]!.end];
    if (plain(span[0]!, span[1]!)) {
      out.push({ at: span[0]!, end: span[1]!, text: '' });
      continue;
    }
    // Comments between: the items and their separating commas only; an item on a line of its own
    // goes with the line break and indentation before it (as `append` wrote it after a comment).
    const from = (k: number) => {
      const start = items[k]!.start;
      const newline = text.lastIndexOf('\n', start - 1);
      return newline >= 0 && /^[ \t]*$/.test(text.slice(newline + 1, start)) ? newline : start;
    };
    for (let k = a; k <= b; k++) out.push({ at: from(k), end: items[k]!.end, text: '' });
    const commas = !last ? Array.from({ length: b - a + 1 }, (_, j) => commaAfter(a + j)) : a > 0 ? Array.from({ length: b - a + 1 }, (_, j) => commaAfter(a - 1 + j)) : Array.from({ length: b - a }, (_, j) => commaAfter(a + j));
    for (const c of commas) out.push({ at: c, end: c + 1, text: '' });
  }
  return out;
}

/** A handler changed member by member: its other members, and its layout, stay as written. */
function updateHandler(text: string, json: string, handler: JsonNode, want: Record<string, unknown>): Insertion[] | null {
  if (handler.kind !== 'object' || text.slice(handler.start, handler.end) !== json.slice(handler.start, handler.end)) return null;
  const edits: Insertion[] = [];
  const missing: string[] = [];
  for (const [key, value] of Object.entries(want)) {
    const member = handler.members.find((m) => m.key === key);
    if (member === undefined) missing.push(key);
    else if (!isDeepStrictEqual(JSON.parse(json.slice(member.value.start, member.value.end)), value)) edits.push({ at: member.value.start, end: member.value.end, text: JSON.stringify(value) });
  }
  if (missing.length > 0) edits.push(...append(text, handler, missing.map((k) => want[k]), missing));
  return edits;
}

interface SettingsChanges {
  added: readonly string[];
  updated: readonly string[];
  removed: readonly { event: string; group: number; handler: number }[];
  removedGroups: readonly { event: string; group: number }[];
}

/**
 * `text` with the guard merged as in `merged`: groups added for `added` events, the guard's
 * handler updated in `updated` ones, second guards removed. Every other byte stays (comments, key
 * order, a number past 2^53, layout). null when the edited text would not read back as `merged`,
 * or an edit would lose a comment.
 */
export function editSettingsText(text: string, merged: Record<string, unknown>, changes: SettingsChanges): string | null {
  const { json } = stripComments(text);
  let root: JsonNode;
  try {
    root = parseSpans(json);
  } catch {
    return null;
  }
  if (root.kind !== 'object') return null;
  const hooks = merged.hooks as Record<string, { hooks?: unknown[] }[]>;
  const edits: Insertion[] = [];
  const hooksNode = root.members.find((m) => m.key === 'hooks')?.value;
  if (hooksNode === undefined) {
    edits.push(...append(text, root, [Object.fromEntries(changes.added.map((e) => [e, hooks[e]]))], ['hooks']));
  } else {
    if (hooksNode.kind !== 'object') return null;
    const missing: string[] = [];
    for (const event of changes.added) {
      const eventNode = hooksNode.members.find((m) => m.key === event)?.value;
      if (eventNode === undefined) missing.push(event);
      else if (eventNode.kind === 'array') edits.push(...append(text, eventNode, [hooks[event]!.at(-1)], null));
      else return null;
    }
    if (missing.length > 0) edits.push(...append(text, hooksNode, missing.map((e) => hooks[e]), missing));
    for (const event of changes.updated) {
      const eventNode = hooksNode.members.find((m) => m.key === event)?.value;
      if (eventNode?.kind !== 'array') return null;
      const goneGroups = changes.removedGroups.filter((r) => r.event === event).map((r) => r.group);
      let newGroup = 0;
      for (const [g, group] of eventNode.items.entries()) {
        if (goneGroups.includes(g)) continue;
        const handlersNode = group.members.find((m) => m.key === 'hooks')?.value;
        const gone = changes.removed.filter((r) => r.event === event && r.group === g).map((r) => r.handler);
        if (handlersNode?.kind === 'array') {
          let newHandler = 0;
          for (const [i, handler] of handlersNode.items.entries()) {
            if (gone.includes(i)) continue;
            const want = hooks[event]?.[newGroup]?.hooks?.[newHandler++];
            if (isDeepStrictEqual(JSON.parse(json.slice(handler.start, handler.end)), want)) continue;
            const changed = typeof want === 'object' && want !== null ? updateHandler(text, json, handler, want as Record<string, unknown>) : null;
            if (changed === null) return null;
            edits.push(...changed);
          }
          if (gone.length > 0) {
            const removal = removeItems(text, json, handlersNode.items, gone);
            if (removal === null) return null;
            edits.push(...removal);
          }
        }
        newGroup++;
      }
      if (goneGroups.length > 0) {
        const removal = removeItems(text, json, eventNode.items, goneGroups);
        if (removal === null) return null;
        edits.push(...removal);
      }
    }
  }
  return applyEdits(text, edits, merged);
}

/** `text` with `edits` made, when it then reads back as exactly `want`; else null. */
export function applyEdits(text: string, edits: Insertion[], want: unknown): string | null {
  let edited = text;
  for (const e of edits.sort((a, b) => b.at - a.at)) edited = edited.slice(0, e.at) + e.text + edited.slice(e.end ?? e.at);
  try {
    return isDeepStrictEqual(parseWithComments(edited), want) ? edited : null;
  } catch {
    return null;
  }
}
