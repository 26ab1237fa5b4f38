// Codex's hook contract, https://developers.openai.com/codex/hooks and openai/codex
// codex-rs/hooks/schema/generated/*.schema.json: the Claude Code shape, in hooks.json.

import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { realpathSync } from 'node:fs';
import { type AgentHook, type EventKind, type HookCall, readClaudeStyle, type Rec, stableJson, type Verdict } from '../../hook/contract.js';
import { codexReview, planCodexReview } from '../../hook/codex-trust.js';
import { claudeProbe, commandHooks } from '../claude-code/hook.js';
import { isRecord } from '../../is-record.js';

/**
 * PreToolUse {session_id, turn_id, transcript_path (nullable), tool_name, tool_input, tool_use_id,
 * …}; PostToolUse adds `tool_response`; Stop adds `last_assistant_message`, `stop_hook_active`.
 * PreToolUse first covered Bash only (the schema's `tool_name: const "Bash"`).
 */
const KINDS: Record<string, EventKind> = {
  PreToolUse: 'pre',
  PostToolUse: 'post',
  Stop: 'stop',
};

/**
 * Codex's hook names a shell call `Bash {command}`, its rollout (and its telemetry) `exec_command
 * {cmd}`: the live guard takes the rollout's name so that a rule naming a tool (`Bash(cat:*)` in
 * observation_tools) reaches the same calls live as in `analyze` of the rollout.
 */
function inRolloutTerms(call: HookCall): HookCall {
  if (call.name !== 'Bash' || !isRecord(call.input) || typeof call.input.command !== 'string') return call;
  const { command, ...rest } = call.input;
  return { ...call, name: 'exec_command', input: { cmd: command, ...rest } };
}

/**
 * 0.169.0: the rollout adds a header (exit code, token count) the payload has not, and the payload
 * has no exit code: its text stands as it is (see docs/hook.md).
 */
function answerText(_name: string, value: Rec): { content: string; isError: boolean } {
  const body = value.tool_response ?? null;
  if (typeof body === 'string') return { content: body, isError: false };
  if (!isRecord(body)) return { content: stableJson(body), isError: false };
  return { content: stableJson(body), isError: body.is_error === true || body.success === false };
}

/**
 * PreToolUse: `permissionDecision: "deny"` needs a non-empty `permissionDecisionReason`;
 * `continue`, `stopReason` and `suppressOutput` are rejected there (codex-rs/hooks/src/engine/
 * output_parser.rs: "PreToolUse hook returned unsupported continue:false"), and a rejected output
 * lets the call proceed, so a stop at PreToolUse is a deny alone and the turn is ended by the next
 * PostToolUse. PostToolUse accepts `continue: false` + `stopReason` and
 * `hookSpecificOutput.additionalContext`.
 */
function answer(_eventName: string, kind: EventKind, v: Verdict): object | null {
  if (kind === 'pre') {
    if (v.deny !== null) {
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: v.deny } };
    }
    if (v.context !== null) return { hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: v.context } };
    return null;
  }
  if (kind === 'post') {
    if (v.stop !== null) return { continue: false, stopReason: v.stop };
    if (v.context !== null) return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: v.context } };
  }
  return null;
}

/** Which records the adapter must see again when reading resumes mid-file. */
function prelude(lines: string[], value: Rec, text: string): string[] {
  const type = value.type;
  if (type === 'session_meta') return lines.some((p) => p.includes('"session_meta"')) ? lines : [text, ...lines];
  if (type === 'turn_context') return [...lines.filter((p) => !p.includes('"turn_context"')), text];
  return lines;
}

/** Codex's home: `$CODEX_HOME` when set (relative to the folder Codex starts in), else ~/.codex. */
function codexHome(env: NodeJS.ProcessEnv, cwd: string): string {
  const set = env['CODEX_HOME'];
  return set ? resolve(cwd, set) : join(env['HOME'] || homedir(), '.codex');
}

/** Where Codex records which hooks its user reviewed. */
function configPath(env: NodeJS.ProcessEnv, cwd: string): string {
  return join(codexHome(env, cwd), 'config.toml');
}

/**
 * `path` with the links of its longest existing part resolved: Codex keys a review by the
 * hooks.json path under `$CODEX_HOME` canonicalized (codex-rs/utils/home-dir `find_codex_home`:
 * `path.canonicalize()` when CODEX_HOME is set; `~/.codex` is taken as it is).
 */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(canonical(parent), basename(path));
  }
}

/** The hooks.json path Codex records reviews under. */
function keyPath(hooksPath: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const home = codexHome(env, cwd);
  return env['CODEX_HOME'] && hooksPath === join(home, 'hooks.json') ? join(canonical(home), 'hooks.json') : hooksPath;
}

export const codexHook: AgentHook = {
  read: (value) => readClaudeStyle({ agent: 'codex', kinds: KINDS, answer: answerText, call: inRolloutTerms }, value),
  render: answer,
  canCarryContext: (kind) => kind === 'pre' || kind === 'post',
  probe: (id, cwd) => ({ ...claudeProbe(id, cwd), turn_id: `probe-${id}`, model: '' }),
  transcript: { adapter: async () => (await import('../../formats/codex.js')).codexAdapter, layout: 'jsonl', prelude },
  /** ~/.codex/hooks.json (in $CODEX_HOME) or <repo>/.codex/hooks.json; no matcher runs for every tool the event supports; `timeout` in seconds. */
  install: {
    ...commandHooks(
      [
        { event: 'PreToolUse', matcher: null },
        { event: 'PostToolUse', matcher: null },
        { event: 'Stop', matcher: null },
      ],
      '.codex/hooks.json',
    ),
    user: (env, cwd) => join(codexHome(env, cwd), 'hooks.json'),
    // Codex runs only hooks its user reviewed (`codex exec` skips the others without a word): the
    // review of exactly the handler written is recorded the way Codex fingerprints it.
    review: {
      file: (io) => configPath(io.env, io.cwd),
      plan: (path, settings, io, isOurs, isGuard, moves) => planCodexReview(keyPath(path, io.env, io.cwd), settings, configPath(io.env, io.cwd), isOurs, isGuard, moves),
      advice: (path, settings, io, isGuard) => codexReview(keyPath(path, io.env, io.cwd), settings, configPath(io.env, io.cwd), isGuard).advice,
    },
  },
};
