// `loopledger sweep`: read the corpus once, then replay it through the real ledger per value.

import { resolve } from 'node:path';
import { resolveInputs } from '../run/audit.js';
import { INTERRUPT_LABELS } from '../calibrate/interrupts.js';
import { loadLabels } from '../calibrate/labels.js';
import { UsageError } from '../errors.js';
import { parseParams } from '../calibrate/param.js';
import { parseMaxFpr, sweep, type PositiveLevel, type SweepResult } from '../calibrate/sweep.js';
import { configHash } from '../ledger/config-hash.js';
import type { Shard } from '../read/shard.js';
import type { LoadedConfig } from '../config/load.js';
import type { ConfigValues } from '../config/spec.js';
import { recordFile, replay, type RecordedFile } from '../run/recorded-corpus.js';
import { LedgerBuilder } from '../ledger/build.js';
import { createDetectorFactories } from '../ledger/detectors.js';
import type { SessionLedger } from '../ledger/types.js';
import type { FormatName } from '../model/transcript.js';
import { reportNotTranscripts } from './diagnostics.js';
import { renderSweep } from './sweep.js';
import { plural } from '../report/text.js';
import type { NotTranscript } from '../formats/input.js';
import type { SweepFormat } from '../vocabulary.js';

export interface SweepRunOptions {
  loaded: LoadedConfig;
  params: readonly string[];
  /** `--labels`, repeatable: one labels file and/or `interrupts` (the user's interrupts as weak labels). */
  labels?: string | readonly string[];
  maxFpr?: string;
  /** What counts as flagging a labeled session; default `stop` (the intervention that ends a turn). */
  positive?: PositiveLevel;
  format: SweepFormat;
  color: boolean;
  inputFormat: FormatName | 'auto';
  onWarning: (message: string) => void;
  /** Name each file found in the directories that is no transcript (otherwise they are counted on one line). */
  verbose?: boolean;
  /** `--shard K/N`: a partial over the files of one shard (loopledger merge adds partials up). */
  shard?: Shard;
}

export async function runSweep(paths: readonly string[], options: SweepRunOptions): Promise<string> {
  const params = parseParams(options.params);
  const maxFpr = options.maxFpr !== undefined ? parseMaxFpr(options.maxFpr) : null;
  const sources = typeof options.labels === 'string' ? [options.labels] : (options.labels ?? []);
  const files = sources.filter((l) => l !== INTERRUPT_LABELS);
  if (files.length > 1) throw new UsageError(`--labels takes one labels file (and/or ${INTERRUPT_LABELS}), not ${files.length}: ${files.join(', ')}`);
  const labels = files[0] !== undefined ? await loadLabels(files[0]) : null;
  const interrupts = sources.includes(INTERRUPT_LABELS);
  const resolved = await resolveInputs(paths, options.shard);
  for (const input of resolved.unreadable) options.onWarning(`${input.path}: ${input.error}`);
  const corpus: RecordedFile[] = [];
  // As analyze does: a file found in a directory that is no transcript is counted, a named one named.
  const named = new Set(paths.map((p) => (p === '-' ? '-' : resolve(p))));
  const others: { path: string; reason: NotTranscript; error: string }[] = [];
  for (const file of resolved.files) {
    const recorded = await recordFile(file, { inputFormat: options.inputFormat });
    const input = recorded.input;
    if (input.not_transcript !== undefined && !named.has(input.path === '-' ? '-' : resolve(input.path))) {
      others.push({ path: input.path, reason: input.not_transcript, error: input.error ?? '' });
    } else if (input.error) options.onWarning(`${input.path}: ${input.error}`);
    const skipped = recorded.input.skipped;
    if (skipped.length > 0) {
      const first = skipped[0]!;
      options.onWarning(
        `${recorded.input.path}: ${plural(skipped.length, 'skipped line')}, the first at line ${first.line ?? '-'}: ${first.reason} (loopledger analyze lists them all)`,
      );
    }
    corpus.push(recorded);
  }
  reportNotTranscripts(others, options.verbose ?? false, options.onWarning);
  const analyze = async (values: ConfigValues): Promise<SessionLedger[]> =>
    corpus.flatMap((file) => {
      const ledger = new LedgerBuilder({ config: values, factories: createDetectorFactories() });
      replay(file, ledger);
      return ledger.sessions();
    });
  const result = await sweep({ params, baseValues: options.loaded.values, analyze, labels, interrupts, maxFpr, positive: options.positive });
  for (const w of result.warnings) options.onWarning(w);
  const config = { ...options.loaded.values } as Record<string, unknown>;
  const full: SweepResult = {
    config_hash: configHash(config),
    ...(options.shard ? { shard: { index: options.shard.index, count: options.shard.count } } : {}),
    ...result,
    config,
  };
  return renderSweep(full, { format: options.format, color: options.color });
}
