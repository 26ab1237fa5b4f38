// SWE-agent trajectories and every other format, side by side: no other adapter claims a .traj,
// and the swe-agent adapter claims no other bundled fixture nor any research sample of another
// format. Mirrors openai-family-detection.test.ts, whose walk only sees .json/.jsonl.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import { ADAPTERS, detectFormat } from '../../src/formats/index.js';
import { sweAgentAdapter } from '../../src/formats/swe-agent.js';
import type { Probe } from '../../src/formats/types.js';

const fixturesDir = path.resolve(__dirname, '../../fixtures');
const samples = path.resolve(__dirname, '../../../shared/research-samples');

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : /\.(jsonl?|traj)$/.test(e.name) ? [p] : [];
  });
}

/** The readings the reader would offer detection: line by line, and the whole text as one document. */
function probesOf(file: string): Probe[] {
  const text = fs.readFileSync(file, 'utf8');
  const fileName = path.basename(file);
  const probes: Probe[] = [];
  const records: unknown[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      // a document's inner line, or a deliberately broken fixture line
    }
    if (records.length >= 50) break;
  }
  if (records.length > 0) probes.push({ mode: 'jsonl', fileName, records });
  try {
    probes.push({ mode: 'document', fileName, value: JSON.parse(text) as unknown });
  } catch {
    // JSON lines: no document reading
  }
  return probes;
}

const sweFixtures = walk(path.join(fixturesDir, 'swe-agent'));
const otherFixtures = walk(fixturesDir).filter((f) => !f.startsWith(path.join(fixturesDir, 'swe-agent') + path.sep));

describe('swe-agent detection', () => {
  it('has its own fixtures', () => {
    expect(sweFixtures.map((f) => path.basename(f)).sort()).toEqual(['calm-fix.traj', 'rerun-failing-check.traj']);
  });

  for (const file of sweFixtures) {
    it(`${path.relative(fixturesDir, file)} → swe-agent, and no other adapter scores it`, () => {
      const doc = probesOf(file).find((p) => p.mode === 'document')!;
      expect(detectFormat(doc)?.name).toBe('swe-agent');
      for (const a of ADAPTERS) if (a.name !== 'swe-agent') expect(a.detect(doc), a.name).toBe(0);
    });
  }

  it('claims none of the other bundled fixtures, read either way', () => {
    expect(otherFixtures.length).toBeGreaterThan(10);
    for (const file of otherFixtures) {
      for (const probe of probesOf(file)) expect(sweAgentAdapter.detect(probe), `${path.relative(fixturesDir, file)} (${probe.mode})`).toBe(0);
    }
  });

  const foreign = walk(samples).filter((f) => !f.endsWith('.traj'));
  itWith('research-samples', 'claims no research sample of another format', () => {
    expect(foreign.length).toBeGreaterThan(0);
    for (const file of foreign) {
      for (const probe of probesOf(file)) expect(sweAgentAdapter.detect(probe), path.relative(samples, file)).toBe(0);
    }
  });

  const trajs = walk(samples).filter((f) => f.endsWith('.traj'));
  itWith('research-samples', 'no other adapter claims the research-sample trajectories', () => {
    expect(trajs.length).toBeGreaterThan(0);
    for (const file of trajs) {
      for (const probe of probesOf(file)) {
        for (const a of ADAPTERS) if (a.name !== 'swe-agent') expect(a.detect(probe), `${a.name} on ${path.basename(file)}`).toBe(0);
      }
    }
  });
});
