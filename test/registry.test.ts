// The registries keep their promises (issue 31, in the manner of typescript-eslint's docs tests):
// every format has an adapter, fixtures and a row in the docs; every kind is declared once,
// described, emitted by some fixture, and given a SARIF rule; every `--format` has a golden;
// every configuration key is printed by `config --verbose` and described in the docs. A new
// format, kind, reporter or key that skips one of these fails here, naming what is missing.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, allKinds, CONFIG_KEYS, FORMAT_NAMES, kindInfo, REPORT_FORMATS } from '../src/index.js';
import { CASES } from './golden/cases.js';
import { ROOT, runCli } from './cli/helpers.js';
import { configKeysPage, kindsPage } from '../docs/generate.mjs';

const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');
const docsText = () =>
  [read('README.md'), ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => read(join('docs', f)))].join('\n');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('formats: one adapter per name, each with fixtures and documentation', () => {
  it('ADAPTERS names exactly FORMAT_NAMES, each once', () => {
    const names = ADAPTERS.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...FORMAT_NAMES].sort());
  });

  it.each([...FORMAT_NAMES])('%s has a fixtures folder with at least one transcript', (name) => {
    const dir = join(ROOT, 'fixtures', name);
    expect(existsSync(dir), `fixtures/${name}/ is missing`).toBe(true);
    expect(filesUnder(dir).length).toBeGreaterThan(0);
  });

  it.each([...FORMAT_NAMES])('%s is named in the README or docs/ as `%s`', (name) => {
    expect(docsText()).toContain(`\`${name}\``);
  });
});

describe('kinds: declared once beside their detector, described, emitted by a fixture', () => {
  let emitted: Set<string>;
  let sarifRules: string[];

  beforeAll(async () => {
    const json = await runCli(['fixtures', '--format', 'json']);
    const report = JSON.parse(json.stdout) as { sessions: { entries: { detector: string; kind: string }[] }[] };
    emitted = new Set(report.sessions.flatMap((s) => s.entries.map((e) => `${e.detector}/${e.kind}`)));
    const sarif = JSON.parse((await runCli(['fixtures', '--format', 'sarif'])).stdout) as {
      runs: { tool: { driver: { rules: { properties: { detector: string; kind: string } }[] } } }[];
    };
    sarifRules = sarif.runs[0]!.tool.driver.rules.map((r) => `${r.properties.detector}/${r.properties.kind}`);
  }, 60_000);

  it('every kind has a SARIF text and a docs line, and a judge line unless it is a count', () => {
    for (const { detector, kind, info } of allKinds()) {
      expect(info.sarif.length, `${detector}/${kind} sarif`).toBeGreaterThan(10);
      expect(info.doc.length, `${detector}/${kind} doc`).toBeGreaterThan(10);
      // Tool-batch kinds are counts against exact thresholds: never ambiguous, never sent to a judge.
      if (detector === 'tool_batch') expect(info.judge).toBeNull();
    }
  });

  it.each(allKinds().map((k) => `${k.detector}/${k.kind}`))('%s is emitted by some fixture under fixtures/', (pair) => {
    expect(emitted.has(pair), `no fixture emits ${pair}: add one (and its label in fixtures/.labels.json)`).toBe(true);
  });

  it('every kind a fixture emits is declared (no kind escapes the registry)', () => {
    for (const pair of emitted) {
      const [detector, kind] = pair.split('/') as [string, string];
      expect(kindInfo(detector, kind), pair).toBeDefined();
    }
  });

  it('SARIF carries one rule per declared kind and none that no detector declares', () => {
    expect([...sarifRules].sort()).toEqual(allKinds().map((k) => `${k.detector}/${k.kind}`).sort());
  });

  it('identical thinking is not a phantom kind: it is thinking_stagnation with identical: true', () => {
    expect(kindInfo('thinking', 'identical_thinking')).toBeUndefined();
    expect(kindInfo('thinking', 'thinking_stagnation')!.doc).toContain('identical: true');
  });

  it('docs/kinds.md is the page the kinds tables generate (npm run docs:generate)', () => {
    expect(read('docs/kinds.md')).toBe(kindsPage());
  });
});

describe('reporters: every --format has a golden', () => {
  it.each([...REPORT_FORMATS])('--format %s is pinned by a golden case', (format) => {
    const pinned = CASES.some((c) =>
      format === 'table' ? !c.args.includes('--format') && !c.args.includes('config') : c.args.join(' ').includes(`--format ${format}`),
    );
    expect(pinned, `no golden case in test/golden/cases.ts runs --format ${format}`).toBe(true);
  });
});

describe('configuration: every key printed and documented', () => {
  let verbose: string;
  beforeAll(async () => {
    verbose = (await runCli(['config', '--verbose', '--no-color'], { env: { COLUMNS: '200' } })).stdout;
  }, 30_000);

  it.each(CONFIG_KEYS.map((k) => k.key))('%s is in `config --verbose` and in docs/config-keys.md', (key) => {
    expect(verbose).toMatch(new RegExp(`^${key.replace(/\./g, '\\.')}\\s`, 'm'));
    expect(read('docs/config-keys.md')).toContain(`| \`${key}\` |`);
  });

  it('docs/config-keys.md is the page the key declarations generate (npm run docs:generate)', () => {
    expect(read('docs/config-keys.md')).toBe(configKeysPage());
  });
});
