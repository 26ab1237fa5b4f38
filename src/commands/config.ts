// `loopledger config`: the effective configuration. A calibration run is only worth as much as
// knowing which thresholds it ran with, so every key is shown with its default and provenance.

import { stat } from 'node:fs/promises';
import { type Command, Option, type OptionValues } from 'commander';
import { type ConfigFileChoice, configSearchPath, loadConfig, shownConfigPath, readConfigFile, type LoadedConfig } from '../config/load.js';
import { assignConfigValues, type ConfigAssignment } from '../config/write.js';
import { EXIT_OK, UsageError } from '../errors.js';
import { underFileLock } from './file-lock.js';
import { writeFileAtomically } from './output.js';
import type { ConfigKeySpec, ConfigValue } from '../config/spec.js';
import { painter } from '../config/text.js';
import { redactConfigValues } from '../config/redact.js';
import { sanitize } from '../sanitize.js';
import { fitColumns, formatHead, formatRow, GAP, type FitColumn } from '../report/columns.js';
import { wrap } from '../report/text.js';
import { LISTING_FORMATS, type ListingFormat } from '../vocabulary.js';
import { colorFor, configFrom, flagOverrides, terminalWidth, warn, writePayload } from './common.js';
import { addConfigOptions, chosen, configOptions, flag, type RegisterCommand, text } from './flags.js';

export const registerConfigCommand: RegisterCommand = (program, io, setExit) => {
  const command: Command = program
    .command('config')
    .description('the effective configuration: every key, its value, its default and where the value came from')
    .addOption(new Option('--format <format>', 'output format').choices(LISTING_FORMATS).default('table'))
    .option('--json', 'same as --format json')
    .option('--write <file>', 'write the --set values into this JSON config file (created or updated atomically; other keys kept)');
  addConfigOptions(command, { color: true, verbose: 'the reason behind each default' }).action(async (raw: OptionValues) => {
    const opts = configOptions(raw);
    const write = text(raw, 'write');
    if (write !== undefined) {
      if (opts.config !== undefined && opts.config !== write) throw new UsageError('config --write FILE updates FILE itself; leave out --config');
      await writePayload(io, await writeConfig(write, opts.set, flagOverrides(opts)), undefined);
      setExit(EXIT_OK);
      return;
    }
    const loaded = await configFrom(opts, io.env);
    for (const w of loaded.warnings) warn(io, w);
    const rendered = renderConfig(loaded, {
      format: flag(raw, 'json') ? 'json' : chosen(raw, 'format', LISTING_FORMATS),
      color: colorFor(opts, io, true),
      width: terminalWidth(io),
      verbose: opts.verbose ?? false,
      file: { ...loaded.file, searched: configSearchPath(io.env, process.cwd()).map((p) => shownConfigPath(p, io.env, process.cwd())) },
    });
    await writePayload(io, rendered, undefined);
    setExit(EXIT_OK);
  });
};

export interface RenderConfigOptions {
  format: ListingFormat;
  color: boolean;
  /** Terminal columns the table fits (default 120). */
  width?: number;
  /** Each key's reason on its own line under it. */
  verbose?: boolean;
  /** The configuration file used and the places searched without `--config`, named first. */
  file?: ConfigFileChoice & { searched: string[] };
}

/** One sentence: which file the values came from, and where one is looked for. */
function fileSentence(file: ConfigFileChoice & { searched: string[] }): string {
  const order = `without --config: ${file.searched.join(', then ')} (LOOPLEDGER_CONFIG overrides; --no-config: the defaults)`;
  const used =
    file.how === 'none' ? 'config file: none found' : file.how === '--no-config' ? 'config file: none (--no-config)' : `config file: ${file.file} (${file.how === 'found' ? 'found' : `from ${file.how}`})`;
  return `${used}; ${order}`;
}

/** How a value reads on the command line, so it can be pasted back into `--set`. */
export function formatConfigValue(value: ConfigValue): string {
  if (value === null) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.join(',');
  return String(value);
}

/**
 * Long lists (capability patterns) would push every reason off the screen: the table shows the
 * items that fit and how many more there are; `--format json` has them all.
 */
const MAX_TABLE_VALUE_CHARS = 48;

function cell(value: ConfigValue, max = MAX_TABLE_VALUE_CHARS): string {
  const full = formatConfigValue(value);
  if (full.length <= max) return full;
  if (Array.isArray(value)) {
    let shown = '';
    let n = 0;
    for (const item of value) {
      const next = n === 0 ? item : `${shown},${item}`;
      if (next.length > max - 12 && n > 0) break;
      shown = next;
      n++;
    }
    if (n < value.length) return `${shown.slice(0, Math.max(1, max - 12))},… (+${value.length - n})`;
  }
  return `${full.slice(0, Math.max(1, max - 1))}…`;
}

/** Narrowest value column worth a table; below it each key gets its own lines. */
const MIN_VALUE_CHARS = 12;
const SOURCE_WORDS: Record<string, string> = { default: 'default', file: 'config file', set: '--set' };

export function renderConfig(result: LoadedConfig, options: RenderConfigOptions): string {
  const { specs, sources } = result;
  const values = redactConfigValues(result.values);
  // Not `??`: null is a real value (`none`), not a missing one.
  const valueOf = (key: string, fallback: ConfigValue): ConfigValue => (key in values ? (values[key] as ConfigValue) : fallback);
  if (options.format === 'json') {
    const payload = {
      schema: 'loopledger/config/1',
      ...(options.file ? { file: options.file.file ?? null, file_from: options.file.how, searched: options.file.searched } : {}),
      config: Object.fromEntries(specs.map((s) => [s.key, valueOf(s.key, s.default)])),
      keys: specs.map((s) => ({
        key: s.key,
        type: s.type,
        value: valueOf(s.key, s.default),
        default: s.default,
        source: sources[s.key] ?? 'default',
        ...(s.nullable ? { nullable: true } : {}),
        ...(s.min !== undefined ? { min: s.min } : {}),
        ...(s.max !== undefined ? { max: s.max } : {}),
        ...(s.values !== undefined ? { values: s.values } : {}),
        reason: s.reason,
      })),
      warnings: result.warnings,
    };
    return `${JSON.stringify(payload, null, 2)}\n`;
  }

  if (specs.length === 0) return 'no configuration keys are registered\n';
  const paint = painter(options.color);
  const width = Math.max(20, Math.floor(options.width ?? 120) || 120);
  const head = options.file ? [...wrap(sanitize(fileSentence(options.file)), width, 2), ''] : [];
  const sourceOf = (k: ConfigKeySpec) => sources[k.key] ?? 'default';
  const changed = (k: ConfigKeySpec) => sourceOf(k) !== 'default';
    const sourceCell = (k: ConfigKeySpec) => SOURCE_WORDS[sourceOf(k)] ?? sourceOf(k);
  // The default is named under a changed key only: a column repeating every value is noise.
  const underLines = (k: ConfigKeySpec): string[] => {
    const out: string[] = [];
    if (changed(k)) out.push(...wrap(`    default: ${sanitize(formatConfigValue(k.default))}`, width, 6).map((l) => paint.dim(l)));
    if (options.verbose) out.push(...wrap(`    ${sanitize(k.reason)}`, width, 4).map((l) => paint.dim(l)));
    return out;
  };
  let keyWidth = 'KEY'.length;
  let sourceWidth = 'SOURCE'.length;
  for (const k of specs) {
    keyWidth = Math.max(keyWidth, k.key.length);
    sourceWidth = Math.max(sourceWidth, sourceCell(k).length);
  }
  // Values get what the terminal leaves, up to MAX_TABLE_VALUE_CHARS; lists keep their count of the rest.
  const valueRoom = Math.min(MAX_TABLE_VALUE_CHARS, width - keyWidth - sourceWidth - 2 * GAP.length);
  const lines: string[] = [...head];
  if (valueRoom >= MIN_VALUE_CHARS) {
    const columns: FitColumn<ConfigKeySpec>[] = [
      { head: 'KEY', align: 'left', priority: Infinity, text: (k) => k.key },
      { head: 'VALUE', align: 'left', priority: Infinity, text: (k) => sanitize(cell(valueOf(k.key, k.default), valueRoom)) },
      { head: 'SOURCE', align: 'left', priority: Infinity, text: sourceCell },
    ];
    const fitted = fitColumns(columns, specs, width);
    lines.push(formatHead(fitted, (_c, t) => paint.bold(t)));
    for (const k of specs) {
      lines.push(formatRow(fitted, k, (c, t) => (c > 0 && changed(k) ? paint.yellow.bold(t) : t)));
      lines.push(...underLines(k));
    }
  } else {
    // Too narrow for columns: one key per line, the rest wrapped under it.
    for (const k of specs) {
      lines.push(...wrap(k.key, width, 4).map((l) => paint.bold(l)));
      const v = `    = ${sanitize(cell(valueOf(k.key, k.default)))} (${sourceCell(k)})`;
      for (const l of wrap(v, width, 6)) lines.push(changed(k) ? paint.yellow.bold(l) : l);
      lines.push(...underLines(k));
    }
  }
  const fromFile = specs.filter((s) => sources[s.key] === 'file').length;
  const fromSet = specs.filter((s) => sources[s.key] === 'set').length;
  const summary = `${specs.length} keys: ${specs.length - fromFile - fromSet} default, ${fromFile} from the config file, ${fromSet} from --set or flags`;
  lines.push('', ...wrap(summary, width, 2));
  if (!options.verbose) lines.push(...wrap('--verbose gives the reason behind each default; --json has every value whole', width, 2).map((l) => paint.dim(l)));
  return lines.join('\n') + '\n';
}

/**
 * `config --write FILE --set KEY=VALUE…`: create or update FILE with the given values, each checked
 * as `--set` checks it, the whole file checked again as `--config` reads it, then written atomically
 * (other keys, comments and the file's mode kept). Returns what changed, one line a key.
 */
async function writeConfig(file: string, sets: readonly string[], overrides: Readonly<Record<string, string>>): Promise<string> {
  if (sets.length === 0 && Object.keys(overrides).length === 0) {
    throw new UsageError(`config --write ${file}: nothing to write; give at least one --set KEY=VALUE`);
  }
  const given = await loadConfig({ sets, overrides });
  const assignments: ConfigAssignment[] = given.specs
    .filter((s) => given.sources[s.key] === 'set')
    .map((s) => ({ key: s.key, value: given.values[s.key] as ConfigValue }));
  // Read, changed and written under a lock: concurrent runs setting different keys keep them all.
  const { exists, previous } = await underFileLock(file, async () => {
    const exists = (await stat(file).catch(() => null)) !== null;
    const before = exists ? await readConfigFile(file) : {};
    const previous = exists ? await loadConfig({ file, fileObject: before }) : null;
    const after = assignConfigValues(before, assignments);
    // The same parser that analyze, hook and sweep use: a file this writes is a file they read.
    await loadConfig({ file, fileObject: after });
    await writeFileAtomically(file, `${JSON.stringify(after, null, 2)}\n`);
    return { exists, previous };
  });
  const lines = assignments.map(({ key, value }) => {
    const was = previous && previous.sources[key] === 'file' ? `was ${formatConfigValue(previous.values[key] as ConfigValue)}` : 'was the default';
    return `${key}=${formatConfigValue(value)} (${was})`;
  });
  return `${sanitize(`${exists ? 'updated' : 'created'} ${file}`)}:\n${lines.map((l) => `  ${sanitize(l)}\n`).join('')}`;
}
