// What the commands' flags share: the argument parsers commander calls while it reads argv, the
// configuration flags several commands take, and readers that turn commander's untyped option
// object into each command's typed options once, at the top of its action.

import { type Command, Option, type OptionValues } from 'commander';
import { PROFILES } from '../ladder/config.js';
import { FORMAT_NAMES, type FormatName } from '../model/transcript.js';
import type { Shard } from '../read/shard.js';
import { UsageError } from '../errors.js';
import type { CliIO, CommonOptions } from './common.js';

/** How a command puts itself on the program: its flags, its help and its action. */
export type RegisterCommand = (program: Command, io: CliIO, setExit: (code: number) => void) => void;

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--jobs takes a whole number of at least 1, not ${value}`);
  return n;
}

export function wholeNumberFor(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`${flag} takes a whole number, not ${value}`);
    return n;
  };
}

/** `--top`: its message says what 0 means. */
export function wholeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0) throw new UsageError(`--top takes a whole number (0 for every session), not ${value}`);
  return n;
}

const SCOPES = ['turn', 'replay'] as const;
const PROFILE_CHOICES = ['auto', ...PROFILES] as const;
const CAPABILITIES = ['auto', 'strong', 'standard', 'weak'] as const;
export const INPUT_FORMAT_CHOICES = ['auto', ...FORMAT_NAMES] as const;

/**
 * What a command's output flags do there: a command lists only those it honours (issue 56 item
 * 5), each said for that command. `label` talks to a terminal of its own and takes none.
 */
interface OutputFlags {
  color?: boolean;
  quiet?: string;
  verbose?: string;
}

/** `--verbose` of the commands that read a corpus but print no ledger (sweep, label). */
export const NOT_TRANSCRIPT_VERBOSE = 'name each file found that is no transcript';

/** The flags of every command that loads the configuration (analyze, sweep, label, config), and the output flags it honours. */
export function addConfigOptions(cmd: Command, output: OutputFlags = {}): Command {
  cmd
    .option('--config <file>', 'configuration file (JSON); without it ./loopledger.json, ./.loopledger.json, then ~/.config/loopledger/config.json')
    .option('--no-config', 'the defaults, whatever config file is found')
    .option('--set <key=value>', 'set one configuration key (repeatable)', collect, [])
    .addOption(new Option('--scope <scope>', 'detector state per user turn, or one tool-batch detector across the replayed conversation').choices(SCOPES))
    .addOption(new Option('--profile <profile>', 'policy profile for threshold scaling').choices(PROFILE_CHOICES))
    .addOption(new Option('--model-capability <capability>', 'model capability tier').choices(CAPABILITIES));
  if (output.color === true) cmd.option('--color', 'force colour').option('--no-color', 'no colour');
  if (output.quiet !== undefined) cmd.option('--quiet', output.quiet);
  if (output.verbose !== undefined) cmd.option('--verbose', output.verbose);
  return cmd;
}

/*
 * Readers of commander's option object. Commander has already checked choices and run the argument
 * parsers, so a mismatch here is a wiring bug (an option renamed on one side only), said as such.
 */

function wrongType(name: string, wanted: string, value: unknown): never {
  throw new Error(`option ${name}: expected ${wanted}, got ${typeof value}`);
}

export function text(raw: OptionValues, name: string): string | undefined {
  const v: unknown = raw[name];
  if (v === undefined || typeof v === 'string') return v;
  return wrongType(name, 'a string', v);
}

export function texts(raw: OptionValues, name: string): string[] {
  const v: unknown = raw[name];
  if (v === undefined) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  return wrongType(name, 'strings', v);
}

export function flag(raw: OptionValues, name: string): boolean | undefined {
  const v: unknown = raw[name];
  if (v === undefined || typeof v === 'boolean') return v;
  return wrongType(name, 'a switch', v);
}

export function count(raw: OptionValues, name: string): number | undefined {
  const v: unknown = raw[name];
  if (v === undefined || typeof v === 'number') return v;
  return wrongType(name, 'a number', v);
}

function isOneOf<T extends string>(v: unknown, choices: readonly T[]): v is T {
  return typeof v === 'string' && (choices as readonly string[]).includes(v);
}

export function choice<T extends string>(raw: OptionValues, name: string, choices: readonly T[]): T | undefined {
  const v: unknown = raw[name];
  if (v === undefined || isOneOf(v, choices)) return v;
  return wrongType(name, choices.join('|'), v);
}

/** A choice with a default: commander always sets it. */
export function chosen<T extends string>(raw: OptionValues, name: string, choices: readonly T[]): T {
  return choice(raw, name, choices) ?? wrongType(name, choices.join('|'), undefined);
}

export function shard(raw: OptionValues): Shard | undefined {
  const v: unknown = raw['shard'];
  if (v === undefined) return undefined;
  if (typeof v === 'object' && v !== null && 'index' in v && 'count' in v && typeof v.index === 'number' && typeof v.count === 'number') {
    return { index: v.index, count: v.count };
  }
  return wrongType('shard', 'K/N', v);
}

export function inputFormat(raw: OptionValues): FormatName | 'auto' {
  return chosen(raw, 'inputFormat', INPUT_FORMAT_CHOICES);
}

/** What `addConfigOptions` set. */
export function configOptions(raw: OptionValues): CommonOptions {
  const out: CommonOptions = { set: texts(raw, 'set') };
  const assign = <K extends keyof CommonOptions>(key: K, value: CommonOptions[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  assign('config', raw['config'] === false ? false : text(raw, 'config'));
  assign('scope', choice(raw, 'scope', SCOPES));
  assign('profile', choice(raw, 'profile', PROFILE_CHOICES));
  assign('modelCapability', choice(raw, 'modelCapability', CAPABILITIES));
  assign('color', flag(raw, 'color'));
  assign('quiet', flag(raw, 'quiet'));
  assign('verbose', flag(raw, 'verbose'));
  return out;
}
