// SWE-agent trajectories (`.traj`): one JSON document per run,
// `{environment, trajectory: [{action, observation, response, thought, state}], history: [...], info}`.
//
// A run is one session of one turn (the task prompt); every trajectory step is one round with
// exactly one tool call, the shell-like command the agent issued.
//
// `thought` is read as visible text, not thinking: it is the prose the model wrote in its reply
// right before the fenced command (`response` = thought + command), produced on the output
// channel and shown to anyone reading the run. It is not a hidden reasoning stream, so it belongs
// to the output detector; the thinking detector would compare it against blocks it never sees in
// other formats' visible text.

import path from 'node:path';
import type { SessionBuilder } from '../model/builder.js';
import type { Usage } from '../model/transcript.js';
import { contentText, isRec, asNumber, stringifySafe, asString, usageOf, type Rec } from './shared/messages.js';
import type { AdapterContext, FormatAdapter, Probe, RecordParser } from './types.js';

export const sweAgentAdapter: FormatAdapter = {
  name: 'swe-agent',
  description: 'SWE-agent trajectory (.traj): one JSON document, trajectory[] steps of thought/action/observation (history[] when trajectory is absent)',
  detection: 'a JSON document whose "trajectory" is a list of steps carrying "action" and "observation" (or whose "history" holds assistant messages with "action")',
  detect: detectSweAgent,
  open: (ctx) => new SweAgentParser(ctx),
};

// Steps looked at by detection: enough to see the shape, cheap on a long run.
const PROBE_STEPS = 20;

function detectSweAgent(probe: Probe): number {
  // A minified .traj is a one-line file: the reader also offers it as a document, and that
  // reading must win (the line reading ties, and ties go to the line reading).
  if (probe.mode !== 'document') return 0;
  const doc = probe.value;
  if (!isRec(doc)) return 0;
  if (Array.isArray(doc.trajectory)) {
    const steps = doc.trajectory.slice(0, PROBE_STEPS).filter(isRec);
    if (steps.length === 0) return doc.trajectory.length === 0 && isSweHistory(doc.history) ? 0.8 : 0;
    const shaped = steps.filter((s) => 'action' in s && 'observation' in s).length;
    return shaped === steps.length ? 0.95 : shaped > 0 ? 0.6 : 0;
  }
  return isSweHistory(doc.history) ? 0.8 : 0;
}

/** SWE-agent's history: role/content messages where the assistant's carry the parsed `action`. */
function isSweHistory(history: unknown): boolean {
  if (!Array.isArray(history)) return false;
  return history
    .slice(0, PROBE_STEPS * 2)
    .some((m) => isRec(m) && m.role === 'assistant' && typeof m.action === 'string');
}

class SweAgentParser implements RecordParser {
  private readonly id: string;
  private documents = 0;

  constructor(private readonly ctx: AdapterContext) {
    this.id = runName(ctx.path);
  }

  push(value: unknown, line: number | null): void {
    // A forced --input-format on a JSONL file, or a file of several documents: each document is
    // a run of its own.
    this.documents += 1;
    if (!isRec(value)) return this.ctx.skip(line, 'not a SWE-agent trajectory (expected a JSON object)');
    const hasSteps = Array.isArray(value.trajectory);
    const hasHistory = Array.isArray(value.history);
    if (!hasSteps && !hasHistory) return this.ctx.skip(line, 'not a SWE-agent trajectory: no "trajectory" or "history" list');
    const key = `run:${this.documents}`;
    const sb = this.ctx.builder.session(key, { id: this.id });
    const model = modelOf(value);
    if (hasSteps && (value.trajectory as unknown[]).length > 0) readSteps(sb, value, model);
    else if (hasHistory) readHistory(sb, value.history as unknown[], model);
    else if (hasSteps) openTaskTurn(sb, value.history);
    this.ctx.builder.endSession(key);
  }

  end(): void {}
}

/** The file name without `.traj` (or `.traj.json`, `.json`): SWE-agent names runs after the instance. */
function runName(filePath: string): string {
  if (filePath === '-' || filePath === '') return 'stdin';
  return path.basename(filePath).replace(/(\.traj)?(\.jsonl?)?$/i, '') || 'session';
}

function readSteps(sb: SessionBuilder, doc: Rec, model: string | null): void {
  openTaskTurn(sb, doc.history);
  for (const step of doc.trajectory as unknown[]) {
    if (!isRec(step)) continue;
    sb.round({ line: null, model });
    visibleText(sb, textOf(step.thought) ?? textOf(step.response));
    const action = asString(step.action);
    if (action !== null && action.trim() !== '') {
      sb.call({ id: null, name: commandName(action), arguments: action });
      // A step without an observation never got one back: its answer stays unknown.
      if ('observation' in step && step.observation !== undefined) sb.answer(null, observationOf(step.observation));
    }
    const usage = stepUsage(step);
    if (usage) sb.usage(usage);
  }
}

/**
 * The task prompt opens turn 1: the first user message that is not a demonstration. Without one
 * (history dropped) the builder opens turn 1 implicitly at the first round.
 */
function openTaskTurn(sb: SessionBuilder, history: unknown): void {
  if (!Array.isArray(history)) return;
  if (history.some(isTaskPrompt)) sb.userTurn(null);
}

function isTaskPrompt(m: unknown): boolean {
  return isRec(m) && m.role === 'user' && m.is_demo !== true;
}

/**
 * The fallback when a file has no trajectory: each assistant message is a round whose `action`
 * is the call, answered by the next user (or tool) message. Only the first user message is a
 * turn; every later one is the environment reporting back.
 */
function readHistory(sb: SessionBuilder, history: unknown[], model: string | null): void {
  let prompted = false;
  let awaiting = false;
  for (const m of history) {
    if (!isRec(m) || m.is_demo === true) continue;
    if (m.role === 'assistant') {
      sb.round({ line: null, model });
      const action = asString(m.action);
      visibleText(sb, textOf(m.thought) ?? contentText(m.content));
      awaiting = action !== null && action.trim() !== '';
      if (awaiting) sb.call({ id: null, name: commandName(action!), arguments: action });
    } else if (m.role === 'user' || m.role === 'tool') {
      if (awaiting) {
        sb.answer(null, observationOf(m.content));
        awaiting = false;
      } else if (!prompted && m.role === 'user') {
        prompted = true;
        sb.userTurn(null);
      }
    }
  }
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return null;
  return contentText(value);
}

function observationOf(value: unknown): { content: string; isError: boolean } {
  // SWE-agent has no error flag: a failing command is just its output.
  const content = typeof value === 'string' ? value : value === null ? '' : contentText(value) || stringifySafe(value);
  return { content, isError: false };
}

// A command word: what a shell would run (`submit`, `open`, `python3`, `./run.sh`, `find_file`).
const COMMAND_WORD = /^[\w./+-]+$/;
const ASSIGNMENT = /^[A-Za-z_]\w*=\S*$/;
const MAX_NAME = 60;

/**
 * The tool name of an action: the command's first word, past any `VAR=value` prefixes. Forms
 * without a command word in front (a subshell, a quoted or piped expression, `{ …; }`) are named
 * by their whole first line, so that distinct special forms stay distinct tools; the full action
 * is the call's arguments either way, so cutting a long name loses nothing for detection.
 */
export function commandName(action: string): string {
  const firstLine = action.trim().split('\n', 1)[0]!.trim();
  const words = firstLine.split(/\s+/);
  let i = 0;
  while (i < words.length - 1 && ASSIGNMENT.test(words[i]!)) i += 1;
  const word = words[i] ?? '';
  const name = COMMAND_WORD.test(word) ? word : firstLine;
  return name.length > MAX_NAME ? `${name.slice(0, MAX_NAME - 1)}…` : name;
}

/**
 * Per-step figures only. `info.model_stats` is the run's total (tokens_sent counts every prompt
 * resent in full), which says nothing about any one round, so it is not spread over them.
 */
function stepUsage(step: Rec): Partial<Usage> | null {
  for (const raw of [step.usage, step.model_stats, isRec(step.extra_info) ? step.extra_info.model_stats : undefined]) {
    if (!isRec(raw)) continue;
    const sent = asNumber(raw.tokens_sent);
    const received = asNumber(raw.tokens_received);
    if (sent !== null || received !== null) return { inputTokens: sent, outputTokens: received, reasoningTokens: null };
    // A provider's usage object (with its cache parts, where it has them).
    const usage = usageOf(raw);
    if (usage && (usage.inputTokens != null || usage.outputTokens != null)) return usage;
  }
  return null;
}

/**
 * The model, where the run recorded it: `info.model_name`, the config saved beside the run
 * (`info.config` / `config`, `replay_config` as an object or its JSON string). The demonstration
 * files ship none.
 */
function modelOf(doc: Rec): string | null {
  const info = isRec(doc.info) ? doc.info : {};
  const direct = asString(info.model_name) ?? asString(info.model);
  if (direct) return direct;
  let replay: unknown = doc.replay_config;
  if (typeof replay === 'string') {
    try {
      replay = JSON.parse(replay);
    } catch {
      replay = null;
    }
  }
  for (const config of [info.config, doc.config, replay]) {
    const name = modelInConfig(config);
    if (name) return name;
  }
  return null;
}

function modelInConfig(config: unknown): string | null {
  if (!isRec(config)) return null;
  const holders = [config.model, isRec(config.agent) ? config.agent.model : undefined];
  for (const m of holders) {
    if (typeof m === 'string' && m !== '') return m;
    if (isRec(m)) {
      const name = asString(m.name) ?? asString(m.model_name);
      if (name) return name;
    }
  }
  return asString(config.model_name);
}

// A step that went straight to its command logs a bare newline as its thought: no text at all.
function visibleText(sb: SessionBuilder, text: string | null): void {
  if (text !== null && text.trim() !== '') sb.text(text);
}
