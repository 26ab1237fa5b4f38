// Small shape-tolerant readers for the JSONL agent logs (claude-code, codex). They never walk
// into tool arguments: those may be nested 100,000 deep and are passed through untouched.

import path from 'node:path';
import { isRecord as isRec } from '../../is-record.js';

export type Rec = Record<string, unknown>;

// The formats read it as isRec: the tree's one definition (src/is-record.ts).
export { isRec };

export function asString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function asNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The file name without directory and extension: the session id of last resort. */
export function fileStem(filePath: string): string {
  if (filePath === '-' || filePath === '') return 'stdin';
  return path.basename(filePath).replace(/\.(jsonl|ndjson|json)$/i, '') || 'session';
}

/** JSON.stringify that never throws (values nested past the stack limit get a marker). */
export function stringifySafe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '[unserializable]';
  }
}

/** A JSON-encoded string parsed; a malformed one stays the raw string (never an error). */
export function parseJsonString(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw === undefined ? null : raw;
  if (raw.trim() === '') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A database cell holding a JSON object (text, or the bytes of text), or null when it holds anything else. */
export function jsonObjectCell(cell: unknown): Rec | null {
  const text = cell instanceof Uint8Array ? Buffer.from(cell).toString('utf8') : cell;
  if (typeof text !== 'string') return null;
  try {
    const value: unknown = JSON.parse(text);
    return isRec(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Content flattened to text, deterministically: a string as is; a list of blocks joined with
 * "\n", each block its `text` (or a `[type name]` marker for images and other non-text
 * parts); an object with `text` its text. Only one level of lists is read: a result's shape
 * never makes this walk deep.
 */
export function flattenContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const block of content) {
      if (typeof block === 'string') parts.push(block);
      else if (isRec(block)) parts.push(blockText(block));
    }
    return parts.join('\n');
  }
  if (isRec(content)) return blockText(content);
  return String(content);
}

function blockText(block: Rec): string {
  if (typeof block.text === 'string') return block.text;
  if (typeof block.content === 'string') return block.content;
  const type = asString(block.type);
  // A named non-text part (a tool reference, a file) keeps its name, so two differ.
  const name = asString(block.tool_name) ?? asString(block.name) ?? asString(block.file_id);
  if (type) return name ? `[${type} ${name}]` : `[${type}]`;
  return stringifySafe(block);
}
