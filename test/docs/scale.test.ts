// Soak tier (npm run test:soak): docs/scale.md's workflows run as written over a generated store.
// docs/scale.md, run as written: the GitHub Actions workflow (parsed, its matrix expanded, each
// step's commands run in a shell with artifacts passed between jobs), the Kubernetes Indexed Job
// (parsed, its command run once per JOB_COMPLETION_INDEX), Spark's pipe command (once per
// partition), and the DuckDB queries (on the shards' ndjson and JSON, when the duckdb binary is
// installed). What each produces must be what one run over the same transcripts gives.

import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declareCapability, describeWith } from '../helpers/capabilities.js';
import { parse as parseYaml } from 'yaml';
import type { LedgerReport } from '../../src/ledger/types.js';
import { ensureBuilt, ROOT, runCli, scratch } from '../cli/helpers.js';

const BIN = join(ROOT, 'bin', 'loopledger.js');
const DOC = readFileSync(join(ROOT, 'docs', 'scale.md'), 'utf8');
const tmp = scratch('loopledger-scale-');
afterAll(() => tmp.cleanup());

/** The fenced blocks of one language, in order. */
function blocks(lang: string): string[] {
  const out: string[] = [];
  const re = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm');
  for (let m = re.exec(DOC); m; m = re.exec(DOC)) out.push(m[1]!);
  return out;
}

/** The block whose first line is `marker` (a comment naming it). */
function block(lang: string, marker: string): string {
  const found = blocks(lang).filter((b) => b.split('\n')[0]!.trim() === marker);
  if (found.length !== 1) throw new Error(`docs/scale.md: expected one \`\`\`${lang} block starting with ${marker}, found ${found.length}`);
  return found[0]!;
}

/** `loopledger` on PATH, as an installed package puts it there. */
function binDir(): string {
  const dir = join(tmp.dir, 'bin');
  if (!existsSync(join(dir, 'loopledger'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'loopledger'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(dir, 'loopledger'), 0o755);
  }
  return dir;
}

function shell(script: string, cwd: string, env: Record<string, string> = {}, shellArgs = ['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c']) {
  const r = spawnSync(shellArgs[0]!, [...shellArgs.slice(1), script], {
    cwd,
    env: { PATH: `${binDir()}:${process.env.PATH ?? ''}`, HOME: tmp.dir, NO_COLOR: '1', LANG: 'C', ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A folder with `runs` (or another name) linking to the fixtures, as a checkout or a mount would hold them. */
function workdir(name: string, link = 'runs'): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(ROOT, 'fixtures'), join(dir, link));
  return dir;
}

beforeAll(() => ensureBuilt(), 300_000);

describe('GitHub Actions: the matrix workflow, its steps run locally', () => {
  const text = block('yaml', '# .github/workflows/agent-loops.yml');
  type Step = { name?: string; run?: string; uses?: string; with?: Record<string, unknown> };
  type Job = { needs?: string; strategy?: { matrix: { shard: number[] }; 'fail-fast'?: boolean }; steps: Step[] };
  const workflow = parseYaml(text) as { jobs: { shard: Job; merge: Job } };

  it('parses, with a matrix of shards 1…N, artifacts per shard, and a merge job after them', () => {
    const { shard, merge } = workflow.jobs;
    const shards = shard.strategy!.matrix.shard;
    expect(shards).toEqual(Array.from({ length: shards.length }, (_, i) => i + 1));
    expect(shards.length).toBeLessThanOrEqual(256);
    expect(shard.strategy!['fail-fast']).toBe(false);
    expect(merge.needs).toBe('shard');
    expect(shard.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@'))).toBe(true);
    expect(merge.steps.some((s) => s.uses?.startsWith('actions/download-artifact@'))).toBe(true);
    expect(merge.steps.find((s) => s.name === 'gate')?.run).toMatch(/loopledger merge .* --fail-on stop/);
  });

  it('the shards and the merge job, run step by step, give one run\'s summary, SARIF and gate', () => {
    const { shard, merge } = workflow.jobs;
    const shards = shard.strategy!.matrix.shard;
    const expr = (s: string, vars: Record<string, string>) =>
      s.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => {
        if (!(name in vars)) throw new Error(`the workflow uses \${{ ${name} }}, which this test does not simulate`);
        return vars[name]!;
      });
    // npx runs the project's loopledger; npm ci has nothing to do here.
    const prelude = `npx() { [ "$1" = loopledger ] || { echo "npx $1: not simulated" >&2; return 1; }; shift; loopledger "$@"; }\nnpm() { :; }\n`;
    const artifacts = join(tmp.dir, 'gha-artifacts');

    for (const [index, value] of shards.entries()) {
      const dir = workdir(`gha-shard-${value}`);
      const vars = { 'matrix.shard': String(value), 'strategy.job-total': String(shards.length), 'strategy.job-index': String(index) };
      for (const step of shard.steps) {
        if (step.run) {
          const r = shell(prelude + expr(step.run, vars), dir);
          expect(r.code, `${step.name ?? step.run}: ${r.stderr}`).toBe(0);
        } else if (step.uses?.startsWith('actions/upload-artifact@')) {
          const name = expr(String(step.with!['name']), vars);
          mkdirSync(join(artifacts, name), { recursive: true });
          const path = expr(String(step.with!['path']), vars);
          copyFileSync(join(dir, path), join(artifacts, name, path));
        }
      }
    }

    const dir = workdir('gha-merge');
    const summary = join(dir, 'step-summary.md');
    const codes = new Map<string, number | null>();
    for (const step of merge.steps) {
      if (step.run) {
        const r = shell(prelude + expr(step.run, {}), dir, { GITHUB_STEP_SUMMARY: summary });
        codes.set(step.name ?? step.run, r.code);
      } else if (step.uses?.startsWith('actions/download-artifact@')) {
        // pattern ledger-*, merge-multiple: every artifact's files in one folder.
        expect(step.with).toMatchObject({ pattern: 'ledger-*', 'merge-multiple': true });
        const into = join(dir, String(step.with!['path']));
        mkdirSync(into, { recursive: true });
        for (const name of readdirSync(artifacts).filter((n) => n.startsWith('ledger-'))) {
          for (const f of readdirSync(join(artifacts, name))) copyFileSync(join(artifacts, name, f), join(into, f));
        }
      } else if (step.uses?.startsWith('github/codeql-action/upload-sarif@')) {
        expect(existsSync(join(dir, String(step.with!['sarif_file'])))).toBe(true);
      }
    }
    expect(readdirSync(join(dir, 'ledgers'))).toHaveLength(shards.length);

    // One run over the same checkout, as a single job would do it.
    const one = (args: string) => shell(`loopledger runs/ ${args}`, dir);
    expect(codes.get('summary')).toBe(0);
    expect(readFileSync(summary, 'utf8')).toBe(one('--format markdown').stdout);
    expect(codes.get('sarif')).toBe(0);
    expect(readFileSync(join(dir, 'loopledger.sarif'), 'utf8')).toBe(one('--format sarif').stdout);
    const gate = one('--fail-on stop --format github');
    expect(gate.code).toBe(1);
    expect(codes.get('gate')).toBe(gate.code);
  }, 600_000);
});

describe('Kubernetes: the Indexed Job, its command run for each JOB_COMPLETION_INDEX', () => {
  const text = block('yaml', '# loopledger-shards.yaml');
  const job = parseYaml(text) as {
    kind: string;
    spec: {
      completions: number;
      parallelism: number;
      completionMode: string;
      template: { spec: { containers: { command: string[]; args: string[]; env: { name: string; value: string }[] }[] } };
    };
  };
  const container = job.spec.template.spec.containers[0]!;

  it('parses as an Indexed Job whose SHARDS is its completions', () => {
    expect(job.kind).toBe('Job');
    expect(job.spec.completionMode).toBe('Indexed');
    expect(container.command).toEqual(['sh', '-c']);
    const shards = container.env.find((e) => e.name === 'SHARDS')!.value;
    expect(Number(shards)).toBe(job.spec.completions);
    expect(job.spec.parallelism).toBeLessThanOrEqual(job.spec.completions);
  });

  it('each pod writes its shard; the merge of them is one run over /archive, gate included', () => {
    const archive = join(workdir('k8s', 'archive'), 'archive');
    const ledgers = join(tmp.dir, 'k8s-ledgers');
    mkdirSync(ledgers);
    const mounted = (s: string) => s.replaceAll('/archive', archive).replaceAll('/ledgers', ledgers);
    const shards = container.env.find((e) => e.name === 'SHARDS')!.value;
    for (let index = 0; index < job.spec.completions; index++) {
      const r = shell(mounted(container.args[0]!), tmp.dir, { JOB_COMPLETION_INDEX: String(index), SHARDS: shards }, ['sh', '-c']);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readdirSync(ledgers).sort()).toEqual(Array.from({ length: job.spec.completions }, (_, i) => `shard-${i + 1}.json`).sort());
    const mergeCommand = blocks('sh').find((b) => b.includes('loopledger merge /ledgers/'))!;
    const merged = shell(mounted(mergeCommand), tmp.dir, {}, ['sh', '-c']);
    const one = shell(`loopledger ${archive} --fail-on stop --format markdown`, tmp.dir);
    expect(one.code).toBe(1);
    expect(merged.code).toBe(one.code);
    expect(readFileSync(join(ledgers, 'ledger.md'), 'utf8')).toBe(one.stdout);
  }, 600_000);
});

describe("Spark: the pipe command, run once per partition", () => {
  it('the partitions\' ndjson lines are one run\'s lines (4 partitions here)', () => {
    const python = blocks('python').find((b) => b.includes('.pipe('))!;
    const command = /\.pipe\(f"([^"]+)"\)/.exec(python)![1]!.replaceAll('{shards}', '4').replaceAll('/mnt/archive', 'fixtures');
    const lines: string[] = [];
    for (let k = 1; k <= 4; k++) {
      // pipe writes each element of the partition to stdin, one per line.
      const r = spawnSync('sh', ['-c', command], { cwd: ROOT, input: `${k}\n`, encoding: 'utf8', env: { PATH: `${binDir()}:${process.env.PATH ?? ''}`, NO_COLOR: '1' } });
      expect(r.status, r.stderr).toBe(0);
      lines.push(...r.stdout.split('\n').filter((l) => l !== ''));
    }
    const one = spawnSync(process.execPath, [BIN, 'fixtures', '--format', 'ndjson'], { cwd: ROOT, encoding: 'utf8' });
    expect(lines.sort()).toEqual(one.stdout.split('\n').filter((l) => l !== '').sort());
  }, 600_000);
});

// ---------------------------------------------------------------------------------------------
// DuckDB: the binary ships as npm packages per platform (@duckdb/node-bindings-<os>-<cpu>); where
// none fits, the queries cannot run here and the test says so.

type DuckConnection = { run(sql: string): Promise<unknown>; runAndReadAll(sql: string): Promise<{ getRowObjectsJson(): Record<string, unknown>[] }> };
let duck: DuckConnection | null = null;
let duckError = '';
try {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  duck = (await (await DuckDBInstance.create(':memory:')).connect()) as unknown as DuckConnection;
} catch (e) {
  duckError = (e as Error).message;
}
declareCapability('duckdb', duck ? null : `the duckdb binding does not load here (${duckError})`);

describeWith('duckdb', 'DuckDB: the queries of docs/scale.md over the shards\' ledgers', () => {
  const sql = (marker: string) => block('sql', `-- ${marker}`);
  let whole: LedgerReport;
  const rows = async (marker: string) => (await duck!.runAndReadAll(sql(marker))).getRowObjectsJson();

  beforeAll(async () => {
    const dir = join(tmp.dir, 'duck');
    mkdirSync(join(dir, 'ledgers'), { recursive: true });
    for (let k = 1; k <= 3; k++) {
      for (const [format, ext] of [['ndjson', 'ndjson'], ['json', 'json']]) {
        const r = await runCli(['fixtures', '--shard', `${k}/3`, '--format', format!, '-o', join(dir, 'ledgers', `shard-${k}.${ext}`)]);
        expect(r.code, r.stderr).toBe(0);
      }
    }
    whole = JSON.parse((await runCli(['fixtures', '--format', 'json'])).stdout) as LedgerReport;
    // The queries' relative paths resolve here, as they would in the folder holding `ledgers/`.
    await duck!.run(`SET file_search_path = '${dir.replaceAll("'", "''")}'`);
  }, 600_000);

  it('check: one schema, one configuration, every entry', async () => {
    const r = await rows('check');
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ schema: 'loopledger/1', config_hash: whole.config_hash });
    expect(Number(r[0]!['entries'])).toBe(whole.summary.entries);
    expect(Number(r[0]!['sessions'])).toBe(new Set(whole.sessions.filter((s) => s.entries.length > 0).map((s) => s.id)).size);
  });

  it('worst sessions: the ten that Enforce stops, then steers, most', async () => {
    const expected = whole.sessions
      .filter((s) => s.entries.length > 0)
      .map((s) => ({
        session: s.id,
        path: s.path,
        stops: s.entries.filter((e) => e.intervention.enforce === 'stop').length,
        steers: s.entries.filter((e) => e.intervention.enforce === 'steer').length,
        entries: s.entries.length,
        rounds_after_stop: new Set(s.entries.filter((e) => e.after_stop).map((e) => e.round)).size,
      }))
      .sort((a, b) => b.stops - a.stops || b.steers - a.steers || b.entries - a.entries || (a.session < b.session ? -1 : a.session > b.session ? 1 : a.path < b.path ? -1 : 1))
      .slice(0, 10);
    const got = (await rows('worst sessions')).map((r) => ({
      session: r['session'],
      path: r['path'],
      stops: Number(r['stops']),
      steers: Number(r['steers']),
      entries: Number(r['entries']),
      rounds_after_stop: Number(r['rounds_after_stop']),
    }));
    expect(got).toEqual(expected);
    expect(got[0]!.stops).toBeGreaterThan(0);
  });

  it('flagged cost per project: each flagged round once', async () => {
    const byProject = new Map<string, { sessions: Set<string>; rounds: Set<string>; tokens: number; usd: number }>();
    for (const s of whole.sessions) {
      for (const e of s.entries) {
        const p = byProject.get(s.project ?? '(none)') ?? { sessions: new Set(), rounds: new Set(), tokens: 0, usd: 0 };
        byProject.set(s.project ?? '(none)', p);
        p.sessions.add(s.id);
        const round = `${s.id}\0${s.path}\0${e.round}`;
        if (p.rounds.has(round)) continue;
        p.rounds.add(round);
        p.tokens += e.round_usage?.tokens ?? 0;
        p.usd += e.round_usage?.usd ?? 0;
      }
    }
    const got = await rows('flagged cost per project');
    expect(got.map((r) => r['project']).sort()).toEqual([...byProject.keys()].sort());
    for (const r of got) {
      const want = byProject.get(String(r['project']))!;
      expect(Number(r['sessions'])).toBe(want.sessions.size);
      expect(Number(r['flagged_rounds'])).toBe(want.rounds.size);
      expect(Number(r['tokens'])).toBe(want.tokens);
      expect(Number(r['usd'])).toBeCloseTo(want.usd, 4);
    }
  });

  it('cost per project: every session, calm ones included, from the JSON ledgers', async () => {
    const got = await rows('cost per project');
    const projects = new Set(whole.sessions.map((s) => s.project ?? '(none)'));
    expect(got.map((r) => r['project']).sort()).toEqual([...projects].sort());
    for (const r of got) {
      const mine = whole.sessions.filter((s) => (s.project ?? '(none)') === r['project']);
      expect(Number(r['sessions'])).toBe(mine.length);
      expect(Number(r['tokens'])).toBe(mine.reduce((n, s) => n + (s.usage?.tokens ?? 0), 0));
      expect(Number(r['unpriced'])).toBe(mine.filter((s) => s.cost?.usd === null).length);
      expect(Number(r['usd'])).toBeCloseTo(mine.reduce((n, s) => n + (s.cost?.usd ?? 0), 0), 4);
      expect(Number(r['saved_usd'])).toBeCloseTo(mine.reduce((n, s) => n + (s.outcome.enforce.saved?.usd ?? 0), 0), 4);
    }
    // Over all projects: the ledger's own totals.
    expect(got.reduce((n, r) => n + Number(r['sessions']), 0)).toBe(whole.summary.sessions);
    expect(got.reduce((n, r) => n + Number(r['usd']), 0)).toBeCloseTo(whole.summary.cost!.usd!, 3);
  });
});
