// What every command shares: the streams it writes to, the configuration flags and how they
// load, colour and width for the human formats, and where a payload goes (stdout or -o).

import { chooseConfigFile, type ConfigFileChoice, loadConfig, type LoadedRunConfig } from '../config/load.js';
import { resolveColor } from '../report/color.js';
import { redactUrls } from '../config/redact.js';
import { sanitize } from '../sanitize.js';
import { batched, type Chunks, writeChunks } from '../report/stream.js';
import { isStdout, refuseInputAsOutput, writeFileAtomically } from './output.js';

export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /**
   * The project folder of `hook install|uninstall|doctor` (its settings files, what a relative
   * `--state-dir` or `--config` is made absolute against, where doctor runs the guard); the
   * process's own when absent, as the guard's io has it. Input paths stay the process's.
   */
  cwd?: string;
}

export interface CommonOptions {
  /** `--config FILE`; false with `--no-config`. */
  config?: string | false;
  set: string[];
  scope?: string;
  profile?: string;
  modelCapability?: string;
  color?: boolean;
  quiet?: boolean;
  verbose?: boolean;
}

/** Columns the human formats fit: the terminal's, else COLUMNS, else 120. */
export function terminalWidth(io: CliIO): number {
  return io.stdout.columns && io.stdout.columns > 0 ? io.stdout.columns : Number(io.env['COLUMNS']) || 120;
}

/** What the dedicated flags (`--scope`, `--profile`, `--model-capability`) set, as config keys. */
export function flagOverrides(opts: CommonOptions): Record<string, string> {
  const overrides: Record<string, string> = {};
  if (opts.scope) overrides['scope'] = opts.scope;
  if (opts.profile) overrides['policy.profile'] = opts.profile;
  if (opts.modelCapability) overrides['policy.model_capability'] = opts.modelCapability;
  return overrides;
}

/** The configuration of a command: the file `chooseConfigFile` picks, then `--set` and the flags. */
export async function configFrom(opts: CommonOptions, env: NodeJS.ProcessEnv = process.env): Promise<LoadedRunConfig & { file: ConfigFileChoice }> {
  const file = chooseConfigFile(opts.config, env);
  return { ...(await loadConfig({ file: file.file, sets: opts.set, overrides: flagOverrides(opts) })), file };
}

export function colorFor(opts: CommonOptions, io: CliIO, toTerminal: boolean): boolean {
  // A file is read later, by tools: FORCE_COLOR (common in CI) should colour the log, not the
  // artifact. Only an explicit --color puts escape codes in a file.
  if (!toTerminal) return opts.color === true;
  return resolveColor({ flag: opts.color, env: io.env, isTTY: io.stdout.isTTY === true });
}

export function warn(io: CliIO, message: string): void {
  io.stderr.write(`loopledger: ${sanitize(redactUrls(message))}\n`);
}

/** stdout, or `--output-file` (`-o`; `-` is stdout) written atomically, never over an input. */
export async function writePayload(io: CliIO, payload: string | Chunks, outputFile: string | undefined, inputs: readonly string[] = []): Promise<void> {
  const chunks = typeof payload === 'string' ? [payload] : payload;
  if (isStdout(outputFile)) return writeChunks(io.stdout, chunks);
  await refuseInputAsOutput(outputFile, inputs);
  await writeFileAtomically(outputFile, batched(chunks));
}
