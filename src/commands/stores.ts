// `loopledger stores`, and what `loopledger` with no path reads: the session stores of this
// user's coding agents (SPEC "Where sessions are found").

import { sep } from 'node:path';
import { Option, type OptionValues } from 'commander';
import { painter, renderTable } from '../config/text.js';
import { sanitize } from '../sanitize.js';
import { EXIT_OK, InputError } from '../errors.js';
import { discoverInputs } from '../read/discover.js';
import { ingestFile } from '../formats/ingest.js';
import { mayBeDatabase } from '../formats/ingest/database.js';
import type { TranscriptSink } from '../model/transcript.js';
import { AGENTS } from '../agents/index.js';
import type { AgentDefinition } from '../agents/types.js';
import { AGENT_LABELS, homeOf, type StoreLocation, storeLocations, storeProject, subagentFile } from '../read/stores.js';
import { LISTING_FORMATS, type ListingFormat } from '../vocabulary.js';
import { colorFor, writePayload } from './common.js';
import { chosen, flag, type RegisterCommand } from './flags.js';

export const registerStoresCommand: RegisterCommand = (program, io, setExit) => {
  program
    .command('stores')
    .description(`the session stores of this user's agents (${AGENTS.map((a) => a.label).join(', ')}) and what is in them`)
    .addOption(new Option('--format <format>', 'output format').choices(LISTING_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .action(async (raw: OptionValues) => {
      const format = flag(raw, 'json') ? 'json' : chosen(raw, 'format', LISTING_FORMATS);
      const color = colorFor({ set: [], color: flag(raw, 'color') }, io, true);
      await writePayload(io, renderStores(await surveyStores(io.env), { format, color, env: io.env }), undefined);
      setExit(EXIT_OK);
    });
};

interface StoreSurvey {
  location: StoreLocation;
  /** Sessions, counted as the ledger counts them (a file holding two sessions counts two), sub-agents' aside. */
  sessions: number;
  /** Sessions in Claude Code 2.1 sub-agent files (`<session>/subagents/agent-*.jsonl`). */
  subagents: number;
  /** Files with a transcript's name found (sub-agents' included, empty ones and those that turn out to be no transcript too). */
  files: number;
  /** Distinct project folders; null where the layout does not say (Codex keeps sessions by date). */
  projects: number | null;
  bytes: number;
}

/** `~/…` for a path under the home folder: shorter, and what the user would type. */
function displayPath(path: string, env: NodeJS.ProcessEnv): string {
  const home = homeOf(env);
  if (home && (path === home || path.startsWith(home + sep))) return `~${path.slice(home.length)}`;
  return path;
}

/**
 * How many sessions `file` holds, as the ledger counts them, and how many of them name a parent:
 * the same reader and format adapters, without the detectors. An empty file holds none, known
 * from its size alone.
 */
async function sessionsIn(file: string, size: number): Promise<{ sessions: number; children: number }> {
  if (size === 0 && !mayBeDatabase(file)) return { sessions: 0, children: 0 };
  let children = 0;
  const counting: TranscriptSink = { session: (info) => void (children += info.parent !== null ? 1 : 0), turn() {}, round() {}, end() {} };
  return { sessions: (await ingestFile(file, counting)).sessions, children };
}

/** Every store location with what is in it: its files sized, and read for their sessions (not analyzed). */
async function surveyStores(env: NodeJS.ProcessEnv): Promise<StoreSurvey[]> {
  const out: StoreSurvey[] = [];
  for (const location of await storeLocations(env)) {
    const agent = agentOf(location);
    const { files, sizes } = location.roots.length > 0 ? await discoverInputs(location.roots) : { files: [], sizes: new Map<string, number>() };
    let sessions = 0;
    let subagents = 0;
    let bytes = 0;
    const projects = new Set<string>();
    for (const file of files) {
      // The walk's own stat: a second one per file would double what an empty store costs.
      const size = sizes.get(file) ?? 0;
      const n = await sessionsIn(file, size);
      const children = agent.childSessions === 'files' ? (subagentFile(file) !== null ? n.sessions : 0) : agent.childSessions === 'parent' ? n.children : 0;
      sessions += n.sessions - children;
      subagents += children;
      const project = storeProject(file);
      if (project !== null) projects.add(project.project);
      bytes += size;
    }
    out.push({ location, sessions, subagents, files: files.length, projects: agent.projectOf ? projects.size : null, bytes });
  }
  return out;
}

export interface DefaultInputs {
  /** The directories to audit. */
  roots: string[];
  /** One line for stderr naming the stores read. */
  announcement: string;
}

/**
 * What `loopledger` with no path audits: every store found. None found is an input error (exit 2)
 * naming every place looked at, and the variables that move them.
 */
export async function defaultInputs(env: NodeJS.ProcessEnv): Promise<DefaultInputs> {
  const locations = await storeLocations(env);
  const found = locations.filter((l) => l.roots.length > 0);
  if (found.length === 0) {
    const looked = locations.map((l) => `${displayPath(l.path, env)}${l.via ? ` ($${l.via})` : ''}`).join(', ');
    throw new InputError(
      `no path given and no agent session store found; looked in ${looked}. ` +
        `Name files or directories to audit (${movers()}).`,
    );
  }
  const named = found.map((l) => {
    const where = displayPath(l.path, env);
    const count = l.path.split(sep).includes('*') ? `, ${l.roots.length} project${l.roots.length === 1 ? '' : 's'}` : '';
    return `${where} (${AGENT_LABELS[l.agent]}${count})`;
  });
  return { roots: found.flatMap((l) => l.roots), announcement: `reading the session stores of this user: ${named.join(', ')}` };
}

function agentOf(location: StoreLocation): AgentDefinition {
  return AGENTS.find((a) => a.name === location.agent)!;
}

/** "CLAUDE_CONFIG_DIR and CODEX_HOME move the Claude Code and Codex stores": each agent whose store a variable of its own moves. */
function movers(): string {
  const moved = AGENTS.flatMap((a) => {
    const own = a.places.find((p) => p.env && !p.env.below)?.env?.name;
    return own ? [{ variable: own, label: a.label }] : [];
  });
  return `${joinAnd(moved.map((m) => m.variable))} move the ${joinAnd(moved.map((m) => m.label))} stores`;
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function renderStores(surveys: readonly StoreSurvey[], options: { format: ListingFormat; color: boolean; env: NodeJS.ProcessEnv }): string {
  if (options.format === 'json') {
    const stores = surveys.map((s) => ({
      agent: s.location.agent,
      path: s.location.path,
      found: s.location.roots.length > 0,
      via: s.location.via,
      roots: s.location.roots,
      sessions: s.sessions,
      subagents: s.subagents,
      files: s.files,
      projects: s.projects,
      bytes: s.bytes,
    }));
    return `${JSON.stringify({ schema: 'loopledger/stores/1', stores }, null, 2)}\n`;
  }
  const paint = painter(options.color);
  const rows = surveys.map((s) => {
    const found = s.location.roots.length > 0;
    const where = sanitize(displayPath(s.location.path, options.env)) + (s.location.via ? ` ($${s.location.via})` : '');
    if (!found) return [AGENT_LABELS[s.location.agent], where, 'not found', '', '', ''];
    return [
      AGENT_LABELS[s.location.agent],
      where,
      s.projects === null ? '-' : String(s.projects),
      String(s.sessions),
      agentOf(s.location).childSessions ? String(s.subagents) : '-',
      formatBytes(s.bytes),
    ];
  });
  const table = renderTable(
    [
      { header: 'AGENT' },
      { header: 'STORE' },
      { header: 'PROJECTS', align: 'right' },
      { header: 'SESSIONS', align: 'right' },
      { header: 'SUB-AGENTS', align: 'right' },
      { header: 'SIZE', align: 'right' },
    ],
    rows,
    (r, c, text) => (c === 2 && rows[r]?.[2] === 'not found' ? paint.dim(text) : text),
    (s) => paint.bold(s),
  );
  const total = surveys.reduce((n, s) => n + s.sessions + s.subagents, 0);
  const files = surveys.reduce((n, s) => n + s.files, 0);
  const tail =
    files === 0
      ? 'No session store found: name files or directories to audit (loopledger PATH…).'
      : `loopledger with no path audits these ${total} session${total === 1 ? '' : 's'} (${files} file${files === 1 ? '' : 's'}); loopledger ~ also finds transcripts elsewhere under your home.`;
  return `${table}\n${tail}\n`;
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}
