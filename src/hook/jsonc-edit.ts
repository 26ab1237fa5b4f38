// The guard merged into a settings file with comments (Gemini CLI's) by editing its text: new
// groups and events are inserted, an existing guard handler is replaced in place (when no comment
// sits inside it); every other byte the owner wrote, comments included, stays where it was. The
// edit is accepted only when the edited text reads back as exactly the merged settings.

import { isDeepStrictEqual } from 'node:util';
import { parseWithComments, stripComments } from './settings-file.js';

interface Member {
  key: string;
  keyStart: number;
  value: JsonNode;
}

interface JsonNode {
  start: number;
  end: number;
  kind: 'object' | 'array' | 'scalar';
  members: Member[];
  items: JsonNode[];
}

/** Value spans over JSON whose comments were blanked (same offsets as the original text). */
function parseSpans(json: string): JsonNode {
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
interface Insertion {
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
function append(text: string, container: JsonNode, entries: unknown[], keys: string[] | null): Insertion[] {
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
 * `text` with the guard merged as in `merged`: groups added for `added` events, the guard's
 * handler replaced in `updated` ones. null when the edited text would not read back as `merged`,
 * or a handler to replace holds a comment (replacing it would lose that).
 */
export function editWithComments(text: string, merged: Record<string, unknown>, added: readonly string[], updated: readonly string[]): string | null {
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
    edits.push(...append(text, root, [Object.fromEntries(added.map((e) => [e, hooks[e]]))], ['hooks']));
  } else {
    if (hooksNode.kind !== 'object') return null;
    const missing: string[] = [];
    for (const event of added) {
      const eventNode = hooksNode.members.find((m) => m.key === event)?.value;
      if (eventNode === undefined) missing.push(event);
      else if (eventNode.kind === 'array') edits.push(...append(text, eventNode, [hooks[event]!.at(-1)], null));
      else return null;
    }
    if (missing.length > 0) edits.push(...append(text, hooksNode, missing.map((e) => hooks[e]), missing));
    for (const event of updated) {
      const groups = hooksNode.members.find((m) => m.key === event)?.value.items ?? [];
      for (const [g, group] of groups.entries()) {
        const handlers = group.members.find((m) => m.key === 'hooks')?.value.items ?? [];
        for (const [i, handler] of handlers.entries()) {
          const want = hooks[event]?.[g]?.hooks?.[i];
          if (isDeepStrictEqual(JSON.parse(json.slice(handler.start, handler.end)), want)) continue;
          if (text.slice(handler.start, handler.end) !== json.slice(handler.start, handler.end)) return null;
          edits.push({ at: handler.start, end: handler.end, text: JSON.stringify(want) });
        }
      }
    }
  }
  let edited = text;
  for (const e of edits.sort((a, b) => b.at - a.at)) edited = edited.slice(0, e.at) + e.text + edited.slice(e.end ?? e.at);
  try {
    return isDeepStrictEqual(parseWithComments(edited), merged) ? edited : null;
  } catch {
    return null;
  }
}
