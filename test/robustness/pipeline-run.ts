// The two-thread pipeline's test files (pipeline.test.ts, pipeline-huge-record.test.ts) drive the
// built modules the same way: loaded from dist/ (the reading thread's worker exists only there),
// typed by their sources, and one file run through them as the CLI would.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import type { SkippedLine } from '../../src/read/skipped.js';
import { ROOT } from './helpers.js';
import type * as Audit from '../../src/run/audit.js';
import type * as ReaderThreadModule from '../../src/run/reader-thread.js';
import type * as LedgerBuild from '../../src/ledger/build.js';
import type * as Detectors from '../../src/ledger/detectors.js';
import type * as Registry from '../../src/config/registry.js';
import type * as Summary from '../../src/ledger/summary.js';
import type * as Json from '../../src/report/json.js';
import type * as Prices from '../../src/money/prices.js';

// The same modules as built in dist/, typed by their sources.
export type Dist = {
  audit: typeof Audit;
  pipeline: typeof ReaderThreadModule;
  ledger: typeof LedgerBuild;
  detectors: typeof Detectors;
  registry: typeof Registry;
  summary: typeof Summary;
  json: typeof Json;
  prices: typeof Prices;
};

const load = async <T>(rel: string): Promise<T> => (await import(pathToFileURL(join(ROOT, 'dist', rel)).href)) as T;


/** The modules above as built; `ensureBuilt()` first. */
export async function loadDist(): Promise<Dist> {
  dist = {
    audit: await load('run/audit.js'),
    pipeline: await load('run/reader-thread.js'),
    ledger: await load('ledger/build.js'),
    detectors: await load('ledger/detectors.js'),
    registry: await load('config/registry.js'),
    summary: await load('ledger/summary.js'),
    json: await load('report/json.js'),
    prices: await load('money/prices.js'),
  };
  return dist;
}

let dist: Dist;

export interface Run {
  json: string;
  diagnostics: string[];
}

/** `--format json` of one file through the built modules, and every diagnostic in the order it was said. */
export async function run(file: string, how: 'one thread' | 'two threads' | 'auditFile', detail = false): Promise<Run> {
  const diagnostics: string[] = [];
  const onSkip = (path: string, s: SkippedLine) => diagnostics.push(`skip ${path}:${s.line}: ${s.reason}`);
  const onWarning = (m: string) => diagnostics.push(`warning ${m}`);
  const config = dist.registry.defaultConfigValues();
  let result;
  if (how === 'two threads') {
    // Whatever the file's size: the fixtures are far below PIPELINE_MIN_BYTES.
    const ledger = new dist.ledger.LedgerBuilder({
      config,
      // auditFile prices by default: so does this path, for the two to compare.
      pricer: await dist.prices.priceBookFor(undefined),
      factories: dist.detectors.createDetectorFactories(),
      onWarning,
      excerpts: detail,
      explain: detail,
      verbose: detail,
    });
    const input = await dist.pipeline.ingestInWorker(file, ledger, { onSkip: (s) => onSkip(file, s) });
    expect(input, 'the worker ran').not.toBeNull();
    result = { input: input!, sessions: ledger.sessions() };
  } else {
    const jobs = how === 'one thread' ? 1 : 2;
    result = await dist.audit.auditFile(file, { config, jobs, onSkip, onWarning, excerpts: detail, explain: detail, verbose: detail });
  }
  const report = dist.summary.assembleReport({ version: 'test', config, inputs: [result.input], sessions: result.sessions });
  return { json: [...dist.json.jsonReportChunks(report, detail)].join(''), diagnostics };
}

