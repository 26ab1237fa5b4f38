// Codex's hook reviews in its config.toml (`[hooks.state."<key>"]` tables with a `trusted_hash`),
// read and edited as text: every other byte of the file stays as its owner wrote it. An edit is
// made only on a shape this module can follow, and kept only when the edited text reads back as
// exactly the reviews intended with nothing defined twice; anything else is refused with what to
// add by hand, so an install never leaves a config.toml Codex cannot load.

import { type Header, type KeyVal, scanToml, type Statement, TomlScanError, tomlString } from './toml-scan.js';

export class CodexConfigError extends Error {}

export interface HookState {
  trusted_hash?: string;
  enabled?: boolean;
}

/** How a table under `hooks` came to be, as TOML's rules on defining a table twice need it. */
type How = 'implicit' | 'header' | 'dotted' | 'inline' | 'value' | 'array';

interface Node {
  how: How;
  /** For a dotted table: the header statement whose section defined it. */
  section: number;
  children: Map<string, Node>;
}

const fresh = (how: How, section: number): Node => ({ how, section, children: new Map() });

/**
 * The tree of what the file defines under `hooks`, checked against TOML's rules (a table is
 * defined once; dotted keys extend only tables their own section defined; an inline table or a
 * value is closed). Throws on a breach: such a file is not TOML.
 */
function hooksTree(statements: Statement[]): Node {
  const root = fresh('implicit', -1);
  let table: string[] | null = [];
  let section = -1;
  const breach = (path: string[], why: string): never => {
    throw new CodexConfigError(`${path.map((p) => tomlString(p)).join('.')} ${why}`);
  };
  const define = (base: Node, keys: string[], how: How, full: string[]) => {
    let node = base;
    for (const [n, k] of keys.entries()) {
      const last = n === keys.length - 1;
      let child = node.children.get(k);
      if (child === undefined) {
        child = fresh(last ? how : 'dotted', section);
        node.children.set(k, child);
        node = child;
        continue;
      }
      if (last || child.how !== 'dotted' || child.section !== section) breach(full.slice(0, full.length - keys.length + n + 1), 'is defined twice');
      node = child;
    }
  };
  for (const [index, s] of statements.entries()) {
    if (s.kind === 'header') {
      const path = s.keys.map((k) => k.value.trim());
      section = index;
      table = path[0] === 'hooks' ? path : null;
      if (table === null) continue;
      let node = root;
      for (const [n, k] of path.entries()) {
        const last = n === path.length - 1;
        let child = node.children.get(k);
        if (child === undefined) {
          child = fresh(last ? (s.array ? 'array' : 'header') : 'implicit', index);
          node.children.set(k, child);
        } else if (last && !s.array && child.how === 'implicit') child.how = 'header';
        else if (child.how === 'inline' || child.how === 'value' || (last && !(s.array && child.how === 'array'))) breach(path.slice(0, n + 1), 'is defined twice');
        if (child.how === 'array' && !last) table = null;
        node = child;
      }
      if (table === null) continue;
    } else if (table !== null) {
      // Under a `hooks` table, or at the top (`hooks.state.x = …`, `hooks = { … }`).
      const keys = s.keys.map((k) => k.value.trim());
      if (table.length === 0 && keys[0] !== 'hooks') continue;
      let node = root;
      for (const k of table) node = node.children.get(k)!;
      define(node, keys, s.value.type === 'inline' ? 'inline' : 'value', [...table, ...keys]);
    }
  }
  return root;
}

/** Every (path, value) a key/value sets, inline tables unfolded. */
function leaves(prefix: string[], kv: KeyVal, out: { path: string[]; kv: KeyVal }[]): void {
  const path = [...prefix, ...kv.keys.map((k) => k.value.trim())];
  if (kv.value.type === 'inline') for (const m of kv.value.members) leaves(path, m, out);
  else out.push({ path, kv });
}

/** The hook states a config.toml text records, by key, in whichever TOML layout. Throws when it cannot be read. */
function statesOf(statements: Statement[]): Map<string, HookState> {
  const states = new Map<string, HookState>();
  let table: string[] | null = [];
  for (const s of statements) {
    if (s.kind === 'header') {
      table = s.array ? null : s.keys.map((k) => k.value.trim());
      continue;
    }
    if (table === null) continue;
    const found: { path: string[]; kv: KeyVal }[] = [];
    leaves(table, s, found);
    for (const { path, kv } of found) {
      if (path.length !== 4 || path[0] !== 'hooks' || path[1] !== 'state') continue;
      const state = states.get(path[2]!) ?? {};
      if (path[3] === 'trusted_hash' && kv.value.type === 'string') state.trusted_hash = kv.value.text;
      else if (path[3] === 'enabled' && kv.value.type === 'boolean') state.enabled = kv.value.value;
      else continue;
      states.set(path[2]!, state);
    }
  }
  return states;
}

/** The hook states in config.toml text (an empty map when it is not TOML this module can read). */
export function readHookStates(toml: string): Map<string, HookState> {
  try {
    const statements = scanToml(toml);
    hooksTree(statements);
    return statesOf(statements);
  } catch {
    return new Map();
  }
}

export interface StateEdits {
  /** Old key → new key: a handler Codex keys by its position moved. */
  renames: Map<string, string>;
  /** Keys whose handler is gone. */
  deletes: Set<string>;
  /** Key → the `trusted_hash` to record. */
  trust: Map<string, string>;
}

function parse(toml: string): { statements: Statement[]; tree: Node } {
  try {
    const statements = scanToml(toml);
    return { statements, tree: hooksTree(statements) };
  } catch (e) {
    if (e instanceof TomlScanError || e instanceof CodexConfigError) throw new CodexConfigError(`it is not TOML this install can follow (${e.message})`);
    throw e;
  }
}

/** Header statements of the table of review `key` and of its sub-tables. */
function headersOf(statements: Statement[], key: string): Header[] {
  return statements.filter((s): s is Header => s.kind === 'header' && s.keys.length >= 3 && s.keys[0]!.value.trim() === 'hooks' && s.keys[1]!.value.trim() === 'state' && s.keys[2]!.value.trim() === key);
}

function apply(text: string, edits: { at: number; end: number; text: string }[]): string {
  let out = text;
  for (const e of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.text + out.slice(e.end);
  return out;
}

const BY_HAND = 'record the reviews with `codex` (open /hooks and trust the loopledger hooks), or write each as its own `[hooks.state."<key>"]` table with a `trusted_hash` line';

/**
 * `toml` with the edits made. Throws CodexConfigError, saying what to do by hand, when the file's
 * shape is one these edits cannot be made on safely.
 */
export function editHookStates(toml: string, edits: StateEdits): string {
  const { statements, tree } = parse(toml);
  const involved = new Set([...edits.renames.keys(), ...edits.renames.values(), ...edits.deletes, ...edits.trust.keys()]);
  if (involved.size === 0) return toml;
  const hooks = tree.children.get('hooks');
  const state = hooks?.children.get('state');
  for (const [name, node] of [['hooks', hooks], ['hooks.state', state]] as const) {
    if (node !== undefined && node.how !== 'implicit' && node.how !== 'header') {
      throw new CodexConfigError(`its \`${name}\` is written as ${node.how === 'dotted' ? 'dotted keys' : node.how === 'inline' ? 'an inline table' : 'a value'}, under which install cannot add a review: ${BY_HAND}`);
    }
  }
  for (const key of involved) {
    const node = state?.children.get(key);
    if (node !== undefined && node.how !== 'header' && node.how !== 'implicit') {
      throw new CodexConfigError(`its review of ${tomlString(key)} is written as ${node.how === 'inline' ? 'an inline table' : node.how === 'dotted' ? 'dotted keys' : 'a value'}, which install does not edit: ${BY_HAND}`);
    }
  }
  // Renames and deletions first, all from the same reading, so a shift by one never collides.
  const first: { at: number; end: number; text: string }[] = [];
  for (const [from, to] of edits.renames) {
    for (const h of headersOf(statements, from)) first.push({ at: h.keys[2]!.start, end: h.keys[2]!.end, text: tomlString(to) });
  }
  for (const key of edits.deletes) {
    for (const h of headersOf(statements, key)) {
      const index = statements.indexOf(h);
      let end = h.lineEnd;
      for (let n = index + 1; n < statements.length && statements[n]!.kind === 'keyval'; n++) end = statements[n]!.lineEnd;
      first.push({ at: h.start, end, text: '' });
    }
  }
  let text = apply(toml, first);
  for (const [key, hash] of edits.trust) {
    const now = parse(text).statements;
    const own = now.findIndex((s) => s.kind === 'header' && !s.array && s.keys.length === 3 && s.keys[0]!.value.trim() === 'hooks' && s.keys[1]!.value.trim() === 'state' && s.keys[2]!.value.trim() === key);
    const entry = `trusted_hash = ${tomlString(hash)}`;
    if (own < 0) {
      const body = text === '' || text.endsWith('\n\n') ? text : text.endsWith('\n') ? `${text}\n` : `${text}\n\n`;
      text = `${body}[hooks.state.${tomlString(key)}]\n${entry}\n`;
      continue;
    }
    let line: KeyVal | undefined;
    for (let n = own + 1; n < now.length && now[n]!.kind === 'keyval'; n++) {
      const kv = now[n] as KeyVal;
      if (kv.keys[0]!.value.trim() !== 'trusted_hash') continue;
      if (kv.keys.length !== 1) throw new CodexConfigError(`its review of ${tomlString(key)} has a dotted trusted_hash key: ${BY_HAND}`);
      line = kv;
    }
    const header = now[own] as Header;
    const headerEnd = header.lineEnd;
    text = line !== undefined
      ? apply(text, [{ at: line.valueStart, end: line.valueEnd, text: tomlString(hash) }])
      : apply(text, [{ at: headerEnd, end: headerEnd, text: `${text[headerEnd - 1] === '\n' ? '' : '\n'}${entry}\n` }]);
  }
  // Kept only when it reads back as intended: every other review as it was.
  const want = statesOf(statements);
  const moved = new Map<string, HookState>();
  for (const [from, to] of edits.renames) {
    const s = want.get(from);
    want.delete(from);
    if (s !== undefined) moved.set(to, s);
  }
  for (const key of edits.deletes) want.delete(key);
  for (const [key, s] of moved) want.set(key, s);
  for (const [key, hash] of edits.trust) want.set(key, { ...want.get(key), trusted_hash: hash });
  const got = statesOf(parse(text).statements);
  const same = got.size === want.size && [...want].every(([k, s]) => got.get(k)?.trusted_hash === s.trusted_hash && got.get(k)?.enabled === s.enabled);
  if (!same) throw new CodexConfigError(`this change could not be made safely by editing it: ${BY_HAND}`);
  return text;
}
