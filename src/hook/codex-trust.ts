// Codex (0.169) runs a hook from hooks.json only once the user has reviewed it: `codex exec`
// skips an unreviewed hook without a word, the TUI asks ("hooks need review before they can
// run"). The review is persisted in the user's config.toml, one table per handler:
//
//   [hooks.state."<absolute hooks.json path>:<event>:<group index>:<handler index>"]
//   trusted_hash = "sha256:<hex>"
//
// and the hash is Codex's own fingerprint of the handler, recomputed at each start: SHA-256 of
// the compact JSON, keys sorted, of {event_name, matcher (when set), hooks: [the handler with
// its defaults filled in]} (codex-rs/hooks/src/engine/discovery.rs `command_hook_hash`,
// codex-rs/config/src/fingerprint.rs `version_for_toml`). A change to the command makes the
// hash differ and Codex asks again, so installing the guard marks exactly what it wrote. The key
// is positional (codex-rs/hooks/src/lib.rs `hook_key`): a handler that moves must take its review
// along. The hooks.json path in it is under $CODEX_HOME canonicalized (install.ts `codexKeyPath`).

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { FileWriteError, type InPlace, inPlace, replaceInPlace } from '../file-in-place.js';
import { editHookStates, readHookStates } from './codex-config.js';

/** Codex's event labels in hook keys and hashes. */
const EVENT_LABELS: Record<string, string> = {
  PreToolUse: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  Stop: 'stop',
};

/** Fields of a command handler that the fingerprint below knows how to normalise. */
const KNOWN_FIELDS = new Set(['type', 'command', 'timeout', 'async']);

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = canonical((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** Codex's trust fingerprint of one command handler, or null for a shape it may hash otherwise. */
function handlerHash(event: string, matcher: unknown, handler: Record<string, unknown>): string | null {
  const label = EVENT_LABELS[event];
  if (!label || typeof handler.command !== 'string') return null;
  if (Object.keys(handler).some((k) => !KNOWN_FIELDS.has(k))) return null;
  const timeout = typeof handler.timeout === 'number' ? Math.max(1, Math.floor(handler.timeout)) : 600;
  const normalised = { type: 'command', command: handler.command, timeout, async: handler.async === true };
  const identity: Record<string, unknown> = { event_name: label, hooks: [normalised] };
  // Stop takes no matcher: Codex drops one there before hashing.
  if (typeof matcher === 'string' && label !== 'stop') identity.matcher = matcher;
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical(identity))).digest('hex')}`;
}

/** The key Codex records a handler's review under: its file, event and position. */
const keyOf = (hooksPath: string, event: string, [g, h]: [number, number]) => `${hooksPath}:${EVENT_LABELS[event] ?? event}:${g}:${h}`;

/** Each guard handler in a hooks.json, where Codex keys its review, and its fingerprint. */
function guardHandlers(
  hooksPath: string,
  settings: Record<string, unknown>,
  isGuard: (handler: unknown) => boolean,
  isOurs: (handler: unknown) => boolean = () => false,
): { event: string; key: string; hash: string | null; ours: boolean }[] {
  const out: { event: string; key: string; hash: string | null; ours: boolean }[] = [];
  const hooks = (settings.hooks ?? {}) as Record<string, unknown>;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, gi: number) => {
      const handlers = (group as { hooks?: unknown })?.hooks;
      if (!Array.isArray(handlers)) return;
      handlers.forEach((handler: unknown, hi: number) => {
        if (!isGuard(handler)) return;
        const hash = handlerHash(event, (group as { matcher?: unknown }).matcher, handler as Record<string, unknown>);
        out.push({ event, key: keyOf(hooksPath, event, [gi, hi]), hash, ours: isOurs(handler) });
      });
    });
  }
  return out;
}

/** What the user must do for Codex to run a hook it has not reviewed. */
const REVIEW = 'run `codex`, open /hooks and trust the loopledger hooks (until then `codex exec` skips them silently)';

export interface CodexReview {
  /** The guard's events whose handler Codex would run. */
  trusted: string[];
  /** The guard's events whose handler has no review recorded (or one of another version of it). */
  unreviewed: string[];
  /** One line for the user when anything is unreviewed, else null. */
  advice: string | null;
}

/**
 * Whether Codex would run the guard's handlers in `hooksPath`: each one's fingerprint against
 * the `trusted_hash` recorded for it in config.toml, as Codex compares them at its start.
 */
export function codexReview(
  hooksPath: string,
  settings: Record<string, unknown>,
  configPath: string,
  isGuard: (handler: unknown) => boolean,
): CodexReview {
  let recorded = new Map<string, string>();
  try {
    const toml = statSync(configPath).isFile() ? readFileSync(configPath, 'utf8') : '';
    for (const [key, state] of readHookStates(toml)) if (state.trusted_hash !== undefined) recorded.set(key, state.trusted_hash);
  } catch {
    // No config.toml (or an unreadable one, or no regular file): nothing is reviewed.
  }
  const trusted: string[] = [];
  const unreviewed: string[] = [];
  for (const h of guardHandlers(hooksPath, settings, isGuard)) {
    (h.hash !== null && recorded.get(h.key) === h.hash ? trusted : unreviewed).push(h.event);
  }
  const advice =
    unreviewed.length === 0
      ? null
      : `Codex has not reviewed the guard under ${unreviewed.join(', ')} (no matching trusted_hash in ${configPath}), so it does not run it: ` +
        `run \`loopledger hook install codex --write\` again with the same options (it records the review), or ${REVIEW}`;
  return { trusted, unreviewed, advice };
}

/** Where a handler of hooks.json was and where it is after an install (null: removed). */
export interface HandlerMove {
  event: string;
  from: [number, number];
  to: [number, number] | null;
}

export interface ReviewPlan {
  /** config.toml as it will be rewritten (null: nothing to write). */
  file: InPlace | null;
  text: string;
  /** One line for the user. */
  message: string;
}

/**
 * The review Codex keys by position (`<hooks.json>:<event>:<group>:<handler>`) follows each of the
 * user's handlers that an install moved (a second guard removed before it): without this, it would
 * lose its review, or take another's, and `codex exec` would skip it without a word. A review
 * left at a position that now holds a handler it was not recorded for is dropped.
 */
function followMoves(hooksPath: string, moves: readonly HandlerMove[], recorded: ReadonlySet<string>): { renames: Map<string, string>; deletes: Set<string> } {
  const renames = new Map<string, string>();
  const deletes = new Set<string>();
  const before = new Set(moves.map((m) => keyOf(hooksPath, m.event, m.from)));
  for (const m of moves) {
    const from = keyOf(hooksPath, m.event, m.from);
    const to = m.to === null ? null : keyOf(hooksPath, m.event, m.to);
    if (to === null) {
      if (recorded.has(from)) deletes.add(from);
      continue;
    }
    if (to !== from && recorded.has(from)) renames.set(from, to);
    // No handler was there before: whatever review that key holds was recorded for none of these.
    if (!before.has(to) && recorded.has(to)) deletes.add(to);
  }
  return { renames, deletes };
}

/**
 * The review of the guard's handlers in `hooksPath` (as the install is about to write it),
 * planned, not written: marks reviewed exactly the handlers `isOurs` says this install wrote (a
 * handler it kept, with someone else's launcher or anything after the guard, is left for its
 * user to review), and moves the reviews of handlers the install shifted. Throws
 * CodexConfigError or FileWriteError, before anything is written, when config.toml cannot be
 * edited safely or written.
 */
export function planCodexReview(
  hooksPath: string,
  settings: Record<string, unknown>,
  configPath: string,
  isOurs: (handler: unknown) => boolean,
  isGuard: (handler: unknown) => boolean,
  moves: readonly HandlerMove[],
): ReviewPlan {
  let toml = '';
  try {
    // Never opened unless a regular file: a FIFO there would block the install.
    if (statSync(configPath).isFile()) toml = readFileSync(configPath, 'utf8');
    else throw new FileWriteError('not a regular file');
  } catch (e) {
    if (e instanceof FileWriteError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new FileWriteError(`cannot read it (${(e as Error).message})`);
  }
  const trust = new Map<string, string>();
  const foreign: string[] = [];
  let unhashable = 0;
  for (const h of guardHandlers(hooksPath, settings, (x) => isGuard(x) || isOurs(x), isOurs)) {
    if (!h.ours) foreign.push(h.event);
    else if (h.hash === null) unhashable++;
    else trust.set(h.key, h.hash);
  }
  const { renames, deletes } = followMoves(hooksPath, moves, new Set(readHookStates(toml).keys()));
  const notMarked = foreign.length > 0
    ? `; the guard under ${foreign.join(', ')} runs a command this install did not write (your launcher, or more after it): not marked reviewed, ${REVIEW}`
    : '';
  const moved = renames.size > 0 ? `; moved the review of ${renames.size} hook${renames.size === 1 ? '' : 's'} whose position changed` : '';
  if (trust.size === 0 && renames.size === 0 && deletes.size === 0) return { file: null, text: toml, message: `loopledger: Codex runs only reviewed hooks: ${REVIEW}${notMarked}` };
  const text = editHookStates(toml, { renames, deletes, trust });
  const rest = unhashable > 0 ? `; ${unhashable} more need review: ${REVIEW}` : '';
  const marked = trust.size > 0 ? `marked the ${trust.size} loopledger hook${trust.size === 1 ? '' : 's'} reviewed for Codex` : 'no hook marked reviewed';
  return { file: text === toml ? null : inPlace(configPath), text, message: `loopledger: ${configPath}: ${marked}${moved}${rest}${notMarked}` };
}

/**
 * Marks the handlers `isOurs` says were written by this install reviewed in Codex's config.toml
 * at once (no handler moved). Returns one line for the user. Throws as `planCodexReview`.
 */
export function trustCodexHooks(hooksPath: string, settings: Record<string, unknown>, configPath: string, isOurs: (handler: unknown) => boolean): string {
  const plan = planCodexReview(hooksPath, settings, configPath, isOurs, isOurs, []);
  if (plan.file !== null) replaceInPlace(plan.file, plan.text);
  return plan.message;
}
