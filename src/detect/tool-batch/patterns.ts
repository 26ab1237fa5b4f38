// Tool-name patterns (`observation_tools`, `costly_tools`, `transparent_tools`). SPEC: a pattern
// matches a tool name case-insensitively when equal to it or ending with it after a separator
// (`_`, `-`, `.`, `:`, `/`), `*` a wildcard: `browser_click` is a `click`, `clickhouse_query` is not.
// `observation_tools` also takes rules `Tool(command prefix:*)` (SPEC 0.3, docs/read-only.md).

import type { ToolCall } from '../../model/transcript.js';
import { commandOf, commandWrites, parseCommandLine, xargsCommand } from './shell.js';

/** What may precede a pattern inside a namespaced tool name (`mcp__browser__click`, `fs.read`, `ns/tool`). */
const SEPARATORS = '_-.:/';

/** SEPARATORS as the inside of a regular-expression character class. */
const SEPARATOR_CLASS = '_\\-.:/';

export type ToolMatcher = (name: string) => boolean;

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.|?+()[\]{}]/g, '\\$&');
}

/** One pattern. Empty patterns never match: an empty string would make every tool read-only. */
function compileOne(pattern: string): ToolMatcher | null {
  const p = pattern.trim().toLowerCase();
  if (p.length === 0) return null;
  if (p.includes('*')) {
    if (/^\*+$/.test(p)) return () => true;
    // The whole name, or the part after any separator: a suffix that starts a name segment.
    const body = p.split('*').map(escapeRegExp).join('.*');
    const re = new RegExp(`^(?:.*[${SEPARATOR_CLASS}])?${body}$`, 's');
    return (name) => re.test(name.toLowerCase());
  }
  return (name) => {
    const n = name.toLowerCase();
    if (n.length === p.length) return n === p;
    return n.length > p.length && n.endsWith(p) && SEPARATORS.includes(n[n.length - p.length - 1]!);
  };
}

/**
 * Compiled lists, by list object: a parsed configuration hands every turn's detectors the same
 * arrays, and compiling them again for each turn was 3% of a store's audit. Matchers and
 * classifiers are pure, so one compile serves every turn and file that shares the list.
 */
const compiledNames = new WeakMap<readonly string[], ToolMatcher>();
const compiledObservations = new WeakMap<readonly string[], CallClassifier>();

/** A matcher for a pattern list: true when any pattern matches the name. */
export function compileToolPatterns(patterns: readonly string[]): ToolMatcher {
  let matcher = compiledNames.get(patterns);
  if (matcher === undefined) {
    matcher = compileToolPatternsOnce(patterns);
    compiledNames.set(patterns, matcher);
  }
  return matcher;
}

function compileToolPatternsOnce(patterns: readonly string[]): ToolMatcher {
  const matchers = patterns.map(compileOne).filter((m): m is ToolMatcher => m !== null);
  if (matchers.length === 0) return () => false;
  if (matchers.length === 1) return matchers[0]!;
  return (name) => {
    for (const m of matchers) if (m(name)) return true;
    return false;
  };
}

/** Whether one call is read-only under `observation_tools`, and why (shown by `--explain`). */
export interface CallClass {
  readOnly: boolean;
  reason: string;
  /** Read-only by a shell rule (what it runs), not by the tool's name: see LoopDetector's failed reads. */
  byCommand?: true;
}

export type CallClassifier = (call: ToolCall) => CallClass;

/** `Tool(command prefix:*)` or `Tool(exact command)`: Claude Code's permission-rule syntax. */
const RULE = /^([^()]+)\((.*)\)$/s;

interface CommandRule {
  tool: ToolMatcher;
  /** The rule's command as words; a command matches when its words start with these. */
  words: string[];
  /** `:*`: any further words; otherwise the command must be exactly these words. */
  prefix: boolean;
  text: string;
}

function ruleOf(pattern: string): CommandRule | null {
  const m = RULE.exec(pattern.trim());
  if (m === null) return null;
  const tool = compileOne(m[1]!);
  if (tool === null) return null;
  let body = m[2]!.trim();
  const prefix = body.endsWith(':*');
  if (prefix) body = body.slice(0, -2).trim();
  const parsed = parseCommandLine(body);
  // A rule naming a compound command (`Bash(cat x | tee y)`) is not a prefix any part could have.
  if (!parsed.ok || parsed.commands.length !== 1 || parsed.commands[0]!.writes !== null) return null;
  const words = parsed.commands[0]!.words;
  if (words.length === 0) return null;
  return { tool, words, prefix, text: pattern.trim() };
}

function wordsMatch(rule: CommandRule, words: readonly string[]): boolean {
  if (words.length < rule.words.length || (!rule.prefix && words.length !== rule.words.length)) return false;
  for (let i = 0; i < rule.words.length; i++) if (words[i] !== rule.words[i]) return false;
  return true;
}

/** Why `words` (one simple command) is not read-only under `rules`, or null when it is. */
function simpleCommandVerdict(words: readonly string[], rules: readonly CommandRule[], depth: number): string | null {
  const writes = commandWrites(words);
  if (writes !== null) return `may write: ${writes}`;
  if (!rules.some((r) => wordsMatch(r, words))) return `\`${words.slice(0, 2).join(' ')}\` is not listed`;
  const inner = xargsCommand(words);
  // `xargs grep` is as read-only as `grep`; `xargs rm` is not, whatever rule admitted xargs.
  if (inner !== null && depth < 2) return simpleCommandVerdict(inner, rules, depth + 1);
  return null;
}

/** The class of a shell command under the rules that name its tool. */
function classifyCommand(command: string, rules: readonly CommandRule[]): CallClass {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return { readOnly: false, reason: `command not read: ${parsed.reason}` };
  if (parsed.commands.length === 0) return { readOnly: false, reason: 'an empty command' };
  for (const c of parsed.commands) {
    if (c.writes !== null) return { readOnly: false, reason: `writes: ${c.writes}` };
    if (c.assignments > 0) return { readOnly: false, reason: 'an environment assignment before the command' };
    const why = simpleCommandVerdict(c.words, rules, 0);
    if (why !== null) return { readOnly: false, reason: why };
  }
  return { readOnly: true, byCommand: true, reason: parsed.commands.length === 1 ? 'a read-only command' : `${parsed.commands.length} read-only commands` };
}

/**
 * A classifier for an `observation_tools` list: tool-name patterns make every call of the tool
 * read-only (as before), rules make a shell call read-only when its command is.
 */
export function compileObservationPatterns(patterns: readonly string[]): CallClassifier {
  let classifier = compiledObservations.get(patterns);
  if (classifier === undefined) {
    classifier = compileObservationPatternsOnce(patterns);
    compiledObservations.set(patterns, classifier);
  }
  return classifier;
}

/** Commands longer than this are classified afresh each time rather than kept (issue 53, item 10). */
const MAX_REMEMBERED_COMMAND_CHARS = 16 * 1024;

function compileObservationPatternsOnce(patterns: readonly string[]): CallClassifier {
  const names: string[] = [];
  const rules: CommandRule[] = [];
  for (const p of patterns) {
    if (RULE.test(p.trim())) {
      const r = ruleOf(p);
      if (r !== null) rules.push(r);
    } else {
      names.push(p);
    }
  }
  const byName = compileToolPatterns(names);
  const NOT_LISTED: CallClass = { readOnly: false, reason: 'tool not in observation_tools' };
  const BY_NAME: CallClass = { readOnly: true, reason: 'a read-only tool' };
  if (rules.length === 0) return (call) => (byName(call.name) ? BY_NAME : NOT_LISTED);
  // Which rules name a tool, per tool name: a session uses a handful of names, the list is long.
  const rulesByTool = new Map<string, CommandRule[]>();
  const seen = new Map<string, CallClass>();
  return (call) => {
    if (byName(call.name)) return BY_NAME;
    let mine = rulesByTool.get(call.name);
    if (mine === undefined) {
      mine = rules.filter((r) => r.tool(call.name));
      if (rulesByTool.size < 256) rulesByTool.set(call.name, mine);
    }
    if (mine.length === 0) return NOT_LISTED;
    const command = commandOf(call.arguments);
    if (command === null) return { readOnly: false, reason: 'no command in the call' };
    // Agents re-run the same commands (tests, status, the loops themselves): tokenize each once.
    // Only short ones are kept as keys: 1,024 long commands held as keys were unbounded memory.
    if (command.length > MAX_REMEMBERED_COMMAND_CHARS) return classifyCommand(command, mine);
    const key = `${call.name}\u0000${command}`;
    let cls = seen.get(key);
    if (cls === undefined) {
      cls = classifyCommand(command, mine);
      if (seen.size >= 1024) seen.clear();
      seen.set(key, cls);
    }
    return cls;
  };
}

/**
 * Compiles an observation list once per list object: configurations hand the detector the same
 * array every round, so the cost is one compile per turn, not one per call.
 */
export class ObservationCache {
  private patterns: readonly string[] | null = null;
  private classifier: CallClassifier = () => ({ readOnly: false, reason: 'tool not in observation_tools' });

  get(patterns: readonly string[]): CallClassifier {
    if (patterns !== this.patterns) {
      this.patterns = patterns;
      this.classifier = compileObservationPatterns(patterns);
    }
    return this.classifier;
  }
}
