// Issue 11 end to end: a generated home folder of the shape a heavy user has (bench/home.mjs:
// Claude Code projects with 2.1 sub-agent folders and resumed sessions, Codex sessions by date
// and archived, Gemini CLI chats, todos, settings, history, node_modules, other JSON, our own
// reports, a link to / and a link loop) audited through the built binary, by `HOME=… loopledger`
// and by `loopledger <home>`.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWith } from '../helpers/capabilities.js';
import { generateHome, type HomeSession } from '../../bench/home.mjs';
import { ensureBuilt, parseLedger, ROOT, runCli, type RunResult } from './helpers.js';
import { AGENTS } from '../../src/agents/index.js';

const out = mkdtempSync(join(tmpdir(), 'loopledger-home-'));
let home = '';
let manifest: HomeSession[] = [];
const NO_STORE_ENV = { CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined, COPILOT_HOME: undefined, XDG_DATA_HOME: undefined, CI: undefined };

beforeAll(async () => {
  ensureBuilt();
  ({ home, manifest } = await generateHome(out, { sessions: 40, seed: 3, scale: 0.03 }));
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface FullSession {
  id: string;
  parent: string | null;
  project: string | null;
  agent_type?: string;
  rounds: number;
}

/** Every session of the manifest exactly once, with its rounds (Claude Code), parent, project and agent type. */
function expectEverySessionOnce(r: RunResult): void {
  const sessions = parseLedger(r).sessions as unknown as FullSession[];
  const ids = sessions.map((s) => s.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort()).toEqual(manifest.map((s) => s.id).sort());
  const byId = new Map(sessions.map((s) => [s.id, s]));
  for (const m of manifest) {
    const s = byId.get(m.id)!;
    expect({ id: s.id, parent: s.parent, project: s.project }).toEqual({ id: m.id, parent: m.parent, project: m.project });
    if (m.rounds !== null) expect([m.id, s.rounds]).toEqual([m.id, m.rounds]);
    if (m.agentType !== undefined) expect([m.id, s.agent_type ?? null]).toEqual([m.id, m.agentType]);
  }
}

describe('no path: the session stores of this user', () => {
  it('HOME=<home> loopledger reads every session exactly once, and names the stores on stderr', async () => {
    expect(manifest.some((s) => s.parent !== null)).toBe(true);
    expect(manifest.some((s) => s.resumed)).toBe(true);
    const r = await runCli(['--json', '--jobs', '2'], { env: { HOME: home, ...NO_STORE_ENV } });
    expect(r.code).toBe(0);
    expectEverySessionOnce(r);
    expect(r.stderr).toBe(
      'loopledger: reading the session stores of this user: ~/.claude/projects (Claude Code), ~/.codex/sessions (Codex), ' +
        `~/.codex/archived_sessions (Codex), ~/.gemini/tmp/*/chats (Gemini CLI, ${new Set(manifest.filter((s) => s.agent === 'gemini').map((s) => s.project)).size} projects)\n`,
    );
    expect(parseLedger(r).inputs.every((i) => i.format !== null)).toBe(true);
  });

  it('CLAUDE_CONFIG_DIR and CODEX_HOME move the stores', async () => {
    const elsewhere = join(out, 'empty-home');
    mkdirSync(elsewhere, { recursive: true });
    const r = await runCli(['--json'], { env: { HOME: elsewhere, CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex') } });
    expect(r.code).toBe(0);
    const ids = parseLedger(r).sessions.map((s) => s.id).sort();
    expect(ids).toEqual(manifest.filter((s) => s.agent !== 'gemini').map((s) => s.id).sort());
  });

  it('none found is exit 2, naming where it looked', async () => {
    const empty = join(out, 'no-stores');
    mkdirSync(empty, { recursive: true });
    const r = await runCli([], { env: { HOME: empty, ...NO_STORE_ENV } });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no path given and no agent session store found; looked in ~\/\.claude\/projects, ~\/\.codex\/sessions, ~\/\.codex\/archived_sessions, ~\/\.gemini\/tmp\/\*\/chats/);
    const moved = await runCli([], { env: { HOME: empty, CLAUDE_CONFIG_DIR: '/nonexistent/claude', CODEX_HOME: undefined } });
    expect(moved.stderr).toContain('/nonexistent/claude/projects ($CLAUDE_CONFIG_DIR)');
  });
});

describe('a home folder given as a path', () => {
  it('is audited like the stores, plus transcripts elsewhere; non-transcripts are one stderr line', async () => {
    const elsewhere = 'src/notes/run.jsonl';
    const first = manifest.find((s) => s.agent === 'claude-code' && s.parent === null)!;
    mkdirSync(join(home, 'src', 'notes'), { recursive: true });
    writeFileSync(join(home, elsewhere), readFileSync(join(home, first.path), 'utf8').replaceAll(first.id, 'a-copy-elsewhere'));
    try {
      const r = await runCli([home, '--json', '--jobs', '2']);
      expect(r.code).toBe(0);
      const report = parseLedger(r) as ReturnType<typeof parseLedger> & { not_transcripts: { path: string; reason: string }[] };
      const ids = report.sessions.map((s) => s.id);
      expect(ids.filter((id) => id === 'a-copy-elsewhere')).toHaveLength(1);
      expectEverySessionOnce({ ...r, stdout: JSON.stringify({ ...report, sessions: report.sessions.filter((s) => s.id !== 'a-copy-elsewhere') }) });
      // Nothing from node_modules, .git, todos, settings or history; our own reports are recognized.
      const seen = report.not_transcripts.map((f) => f.path.slice(home.length + 1));
      expect(seen.filter((p) => /node_modules|\.git\/|todos|settings|history|\.npm|\.config/.test(p))).toEqual([]);
      expect(report.not_transcripts.filter((f) => f.reason === 'loopledger-report').map((f) => f.path.slice(home.length + 1)).sort()).toEqual([
        'reports/entries.ndjson.jsonl',
        'reports/ledger.json',
      ]);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^loopledger: ${report.not_transcripts.length} files found in the directories are not a transcript \\(\\d+ no known format, .*\\); --verbose lists them$`)),
      ]);
    } finally {
      rmSync(join(home, 'src', 'notes'), { recursive: true, force: true });
    }
  });

  it('--verbose lists each file that is no transcript; a non-transcript named explicitly is still named', async () => {
    const v = await runCli([join(home, 'src', 'webapp'), '--verbose', '--json']);
    expect(v.code).toBe(0);
    expect(v.stderr).toMatch(/src\/webapp\/package\.json: not a transcript: not a recognized transcript format/);
    expect(v.stderr).toMatch(/src\/webapp\/empty\.json: not a transcript: empty file/);
    const named = await runCli([join(home, 'src', 'webapp', 'package.json'), '--json']);
    expect(named.stderr).toContain(`${join(home, 'src', 'webapp', 'package.json')}: not a recognized transcript format`);
    expect(named.stderr).not.toMatch(/found in the directories/);
  });
});

describe('loopledger stores', () => {
  it('lists each store with its projects, sessions, sub-agents and size', async () => {
    const r = await runCli(['stores'], { env: { HOME: home, ...NO_STORE_ENV } });
    expect(r.code).toBe(0);
    const count = (pred: (s: HomeSession) => boolean) => manifest.filter(pred).length;
    const claude = manifest.filter((s) => s.agent === 'claude-code');
    const row = (store: string) => r.stdout.split('\n').find((l) => l.includes(` ${store} `))!.trim().split(/\s{2,}/);
    expect(row('~/.claude/projects').slice(0, 5)).toEqual([
      'Claude Code', '~/.claude/projects', String(new Set(claude.map((s) => s.project)).size),
      String(count((s) => s.agent === 'claude-code' && s.parent === null)), String(count((s) => s.agent === 'claude-code' && s.parent !== null)),
    ]);
    expect(row('~/.codex/sessions').slice(0, 5)).toEqual(['Codex', '~/.codex/sessions', '-', String(count((s) => s.path.startsWith('.codex/sessions/'))), '-']);
    expect(row('~/.codex/archived_sessions').slice(3, 4)).toEqual([String(count((s) => s.path.startsWith('.codex/archived_sessions/')))]);
    expect(row('~/.gemini/tmp/*/chats').slice(3, 4)).toEqual([String(count((s) => s.agent === 'gemini'))]);
    expect(r.stdout).toMatch(new RegExp(`loopledger with no path audits these \\d+ sessions \\(${manifest.length} files\\)`));
    const json = JSON.parse((await runCli(['stores', '--json'], { env: { HOME: home, ...NO_STORE_ENV } })).stdout);
    expect(json.schema).toBe('loopledger/stores/1');
    expect(json.stores.reduce((n: number, s: { files: number }) => n + s.files, 0)).toBe(manifest.length);
    // Issue 26: sessions are counted as the ledger counts them (a file holding two counts two).
    const ledger = parseLedger(await runCli(['--format', 'json'], { env: { HOME: home, ...NO_STORE_ENV } }));
    expect(json.stores.reduce((n: number, s: { sessions: number; subagents: number }) => n + s.sessions + s.subagents, 0)).toBe(ledger.summary.sessions);
  });

  it('says where it looked when nothing is there (exit 0: the answer is "none")', async () => {
    const empty = join(out, 'no-stores-2');
    mkdirSync(empty, { recursive: true });
    const r = await runCli(['stores'], { env: { HOME: empty, ...NO_STORE_ENV } });
    expect(r.code).toBe(0);
    expect(r.stdout.match(/not found/g)).toHaveLength(AGENTS.flatMap((a) => a.places).length);
    expect(r.stdout).toContain('No session store found');
  });
});

describe('CI gates and slips', () => {
  // SPEC: "A CI gate never passes on nothing: --fail-on with no transcript found exits 2."
  it('--fail-on over a folder with no transcript exits 2 (it used to pass)', async () => {
    const folder = join(home, 'src', 'api-server');
    const gate = await runCli([folder, '--fail-on', 'stop']);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toMatch(/--fail-on stop: no transcript found under .*a gate on nothing fails closed/);
    expect((await runCli([folder])).code).toBe(0);
  });

  it('a mistyped command gets a did-you-mean (exit 2) unless a path of that name exists', async () => {
    const r = await runCli(['swep', 'fixtures']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'swep'; did you mean 'loopledger sweep'?");
    expect((await runCli(['stroes'])).stderr).toContain("did you mean 'loopledger stores'?");
    expect((await runCli(['confg'])).stderr).toContain("did you mean 'loopledger config'?");
    // Far from every command: still read as a path (and reported missing as one).
    expect((await runCli(['zzzzzz'])).stderr).toContain('zzzzzz: no such file or directory');
    const cwd = mkdtempSync(join(tmpdir(), 'loopledger-swep-'));
    try {
      writeFileSync(join(cwd, 'swep'), readFileSync(join(home, manifest[0]!.path)));
      const asPath = spawnSync(process.execPath, [join(ROOT, 'bin', 'loopledger.js'), 'swep', '--json'], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      expect(asPath.status).toBe(0);
      expect(JSON.parse(asPath.stdout).inputs[0].path).toBe('swep');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

// SPEC: "On a terminal (stderr a TTY, not CI, not --quiet) a progress line shows files done of
// total; it never reaches a pipe or a file." `script` gives the child a real terminal.
describeWith('script', 'progress on a terminal', () => {
  const underTty = (args: string, env: Record<string, string> = {}) => {
    const cmd = `${process.execPath} ${join(ROOT, 'bin', 'loopledger.js')} ${args}`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '', ...env } });
    return r.stdout;
  };

  it('shows files done of total on a terminal, and takes the line away before the report', () => {
    const screen = underTty(`${join(home, '.claude')} -o ${join(out, 'progress.txt')}`);
    expect(screen).toMatch(/loopledger: \d+\/\d+ files \(\d+%\)/);
    expect(screen).toContain('\r\u001b[K');
    expect(readFileSync(join(out, 'progress.txt'), 'utf8')).not.toMatch(/files \(\d+%\)/);
  });

  it('not under CI, not with --quiet, and never into a pipe', async () => {
    expect(underTty(`${join(home, '.claude')} -o ${join(out, 'p2.txt')}`, { CI: 'true' })).not.toMatch(/files \(/);
    expect(underTty(`${join(home, '.claude')} --quiet -o ${join(out, 'p3.txt')}`)).not.toMatch(/files \(/);
    expect(underTty(`${join(home, '.claude')} -o ${join(out, 'p4.txt')} 2>${join(out, 'stderr.txt')}`)).not.toMatch(/files \(/);
    expect(readFileSync(join(out, 'stderr.txt'), 'utf8')).not.toMatch(/files \(/);
    const piped = await runCli([join(home, '.claude')]);
    expect(piped.stderr + piped.stdout).not.toMatch(/files \(\d+%\)/);
  });
});
