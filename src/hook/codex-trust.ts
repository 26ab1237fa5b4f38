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
// hash differ and Codex asks again, so installing the guard marks exactly what it wrote.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

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

/** `trusted_hash` set for `key` in config.toml text: its table updated in place, else appended. */
function setTrustedHash(toml: string, key: string, hash: string): string {
  const header = `[hooks.state.${JSON.stringify(key)}]`;
  const lines = toml === '' ? [] : toml.replace(/\n$/, '').split('\n');
  const start = lines.findIndex((l) => l.trim() === header);
  const entry = `trusted_hash = ${JSON.stringify(hash)}`;
  if (start < 0) {
    if (lines.length > 0 && lines[lines.length - 1]!.trim() !== '') lines.push('');
    lines.push(header, entry);
    return `${lines.join('\n')}\n`;
  }
  let end = start + 1;
  while (end < lines.length && !lines[end]!.trim().startsWith('[')) end++;
  const at = lines.slice(start + 1, end).findIndex((l) => /^\s*trusted_hash\s*=/.test(l));
  if (at >= 0) lines[start + 1 + at] = entry;
  else lines.splice(start + 1, 0, entry);
  return `${lines.join('\n')}\n`;
}

/** A TOML basic or literal string key as written in a table header, unquoted (null: another form). */
function tomlKey(text: string): string | null {
  if (text.startsWith("'") && text.endsWith("'") && text.length >= 2) return text.slice(1, -1);
  if (!text.startsWith('"')) return null;
  try {
    // A basic string's escapes are JSON's for every path Codex writes.
    const key: unknown = JSON.parse(text);
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

/**
 * `trusted_hash` of every `[hooks.state."<key>"]` table in config.toml text: the form Codex and
 * `hook install` write. Other TOML layouts of the same setting are not read (their hooks show as
 * not reviewed, which `hook doctor` says how to fix).
 */
function trustedHashes(toml: string): Map<string, string> {
  const out = new Map<string, string>();
  let key: string | null = null;
  for (const raw of toml.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      const m = /^\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]$/.exec(line);
      key = m ? tomlKey(m[1]!) : null;
      continue;
    }
    const v = key === null ? null : /^trusted_hash\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')/.exec(line);
    if (v) {
      const hash = tomlKey(v[1]!);
      if (hash !== null) out.set(key!, hash);
    }
  }
  return out;
}

/** Each guard handler in a hooks.json, where Codex keys its review, and its fingerprint. */
function guardHandlers(
  hooksPath: string,
  settings: Record<string, unknown>,
  isGuard: (handler: unknown) => boolean,
): { event: string; key: string; hash: string | null }[] {
  const out: { event: string; key: string; hash: string | null }[] = [];
  const hooks = (settings.hooks ?? {}) as Record<string, unknown>;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, gi: number) => {
      const handlers = (group as { hooks?: unknown })?.hooks;
      if (!Array.isArray(handlers)) return;
      handlers.forEach((handler: unknown, hi: number) => {
        if (!isGuard(handler)) return;
        const hash = handlerHash(event, (group as { matcher?: unknown }).matcher, handler as Record<string, unknown>);
        out.push({ event, key: `${hooksPath}:${EVENT_LABELS[event] ?? event}:${gi}:${hi}`, hash });
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
    recorded = trustedHashes(readFileSync(configPath, 'utf8'));
  } catch {
    // No config.toml (or an unreadable one): nothing is reviewed.
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

/**
 * Marks the guard's handlers in `hooksPath` (as just written) reviewed in Codex's user
 * config.toml. `isGuard` tells the guard's handlers from the user's own, which stay as they
 * were. Returns one line for the user: what was marked, or what they must do themselves.
 */
export function trustCodexHooks(
  hooksPath: string,
  settings: Record<string, unknown>,
  configPath: string,
  isGuard: (handler: unknown) => boolean,
): string {
  let toml = existsSync(configPath) ? readFileSync(configPath, 'utf8') : '';
  let marked = 0;
  let unhashable = 0;
  for (const h of guardHandlers(hooksPath, settings, isGuard)) {
    if (h.hash === null) {
      unhashable++;
      continue;
    }
    toml = setTrustedHash(toml, h.key, h.hash);
    marked++;
  }
  if (marked === 0) return `loopledger: Codex runs only reviewed hooks: ${REVIEW}`;
  mkdirSync(dirname(configPath), { recursive: true });
  const tmp = `${configPath}.${process.pid}.tmp`;
  writeFileSync(tmp, toml);
  renameSync(tmp, configPath);
  const rest = unhashable > 0 ? `; ${unhashable} more need review: ${REVIEW}` : '';
  return `loopledger: ${configPath}: marked the ${marked} loopledger hook${marked === 1 ? '' : 's'} reviewed for Codex${rest}`;
}
