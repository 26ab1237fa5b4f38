// The agents' registry is complete (issue 55 item 1, typescript-eslint's habit): an agent in it
// without its recorded fixture, its README "What it reads" row, its docs/formats.md row, its test
// or its place in `loopledger stores` fails here, so adding an agent cannot stop half-way.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS } from '../../src/agents/index.js';
import { AGENT_NAMES } from '../../src/agents/types.js';
import { FORMAT_NAMES } from '../../src/model/transcript.js';
import { ensureBuilt } from '../cli/helpers.js';

// It runs or reads the build: the build of src/ as it is now, even when this file runs alone.
beforeAll(() => ensureBuilt());

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const FORMATS_DOC = readFileSync(join(ROOT, 'docs/formats.md'), 'utf8');
const CLI_DOC = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

/** The rows of the README's "What it reads" table. */
function whatItReadsRows(): string[] {
  const section = README.split(/^## /m).find((s) => s.startsWith('What it reads')) ?? '';
  return section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| agent or tool'));
}

describe('the agents registry', () => {
  it('names each agent once, with a SPEC 0.4 name and a known format', () => {
    const names = AGENTS.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const agent of AGENTS) {
      expect(AGENT_NAMES).toContain(agent.name);
      expect(FORMAT_NAMES).toContain(agent.format);
    }
  });

  describe.each(AGENTS.map((a) => [a.name, a] as const))('%s', (_name, agent) => {
    it(`has its recorded fixture under fixtures/agents/${agent.name}-${agent.verified}/, with a README saying where it came from`, () => {
      const dir = join(ROOT, 'fixtures/agents', `${agent.name}-${agent.verified}`);
      expect(existsSync(dir), dir).toBe(true);
      expect(readdirSync(dir).filter((f) => f !== 'README.md').length).toBeGreaterThan(0);
      expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain(agent.verified);
    });

    it(`has a row in the README's "What it reads" naming ${agent.label}, with the release it was verified against`, () => {
      const row = whatItReadsRows().find((r) => r.split('|')[1]!.includes(agent.label));
      expect(row, agent.label).toBeDefined();
      expect(README).toContain(`${agent.label} ${agent.verified}`);
    });

    it(`has a row in docs/cli.md's "Where sessions are found" naming ${agent.label}`, () => {
      const section = CLI_DOC.split(/^## /m).find((s) => s.startsWith('Where sessions are found')) ?? '';
      expect(section.split('\n').some((l) => l.startsWith(`| ${agent.label} |`))).toBe(true);
    });

    it(`has a row in docs/formats.md for its format \`${agent.format}\``, () => {
      expect(FORMATS_DOC).toMatch(new RegExp(`^\\| \`${agent.format}\` \\|`, 'm'));
    });

    it('has a test of its format adapter', () => {
      expect(existsSync(join(ROOT, 'test/formats', `${agent.format}.test.ts`))).toBe(true);
    });
  });

  it('`loopledger stores --json` lists every place of every agent, in the registry order', () => {
    const out = execFileSync(process.execPath, [join(ROOT, 'bin/loopledger.js'), 'stores', '--json'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: join(ROOT, '.tmp/registry-empty-home') },
      encoding: 'utf8',
    });
    const stores = (JSON.parse(out) as { stores: { agent: string }[] }).stores.map((s) => s.agent);
    expect(stores).toEqual(AGENTS.flatMap((a) => a.places.map(() => a.name)));
  });
});
