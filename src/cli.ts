// The command line: the program, which command an argv names, and the exit code. Each command's
// flags, typed options and action are in commands/ (analyze.ts, the default); below that, the library.

import { Command, CommanderError } from 'commander';
import { registerAnalyzeCommand } from './commands/analyze.js';
import type { CliIO } from './commands/common.js';
import { registerConfigCommand } from './commands/config.js';
import type { RegisterCommand } from './commands/flags.js';
import { registerFormatsCommand } from './commands/formats.js';
import { registerHookCommands } from './commands/hook.js';
import { registerLabelCommand } from './commands/label.js';
import { registerMergeCommand } from './commands/merge.js';
import { registerStoresCommand } from './commands/stores.js';
import { refuseMistypedCommand } from './commands/suggest.js';
import { registerSweepCommand } from './commands/sweep-run.js';
import { redactUrls } from './config/redact.js';
import { EXIT_OK, EXIT_USAGE, LoopledgerError } from './errors.js';
import { sanitize } from './sanitize.js';
import { VERSION } from './version.js';

/**
 * Below the command list of `loopledger --help`: analyze's main options (it is the default
 * command), three examples, and the words every output uses (docs/cli.md "Words" says the same).
 */
const TOP_HELP = `
Main options of analyze (loopledger analyze --help lists every one):
  --format table|json|ndjson|markdown|html|…  output format (default table)
  --fail-on noted|steer|stop  exit 1 when a session reaches that level
  --since 7d  --until DATE    only the sessions of that time window
  --by day|week|month         totals per period
  --top N  --all  --sort level|saved|cost|date|path
                              how much of the table, in what order
  --excerpts  --explain       what looped, and the numbers behind a finding

Examples:
  # the sessions of this user's agents, worst first
  loopledger
  # last week's Claude Code sessions, with totals per day
  loopledger ~/.claude/projects --since 7d --by day
  # a CI check on recorded runs: exit 1 where Enforce would stop one
  loopledger runs/ --format markdown --fail-on stop

Words:
  session   one recorded conversation (a sub-agent's thread is one of its own)
  turn      all that follows one message from the user (t2: turn 2)
  round     one model response, counted through the session (r14: round 14)
  finding   a round where a detector fired; a table row is a run of findings
  calm      a session with no finding
  modes     Off: nothing runs · Telemetry: notes findings · Enforce: acts
  noted · steer · stop   what Enforce does: notes it, reminds the agent,
            ends the turn
`;

const defaultIO = (): CliIO => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

/** Every command, in the order `loopledger --help` lists them; each module holds its flags and action. */
const COMMANDS: readonly RegisterCommand[] = [
  registerAnalyzeCommand,
  registerSweepCommand,
  registerLabelCommand,
  registerMergeCommand,
  registerConfigCommand,
  registerHookCommands,
  registerStoresCommand,
  registerFormatsCommand,
];

export function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command('loopledger');
  program
    .description(
      'Audit recorded AI-agent sessions for loops: replay every round through the tool-batch, output and ' +
        'thinking detectors and print a ledger of what Off, Telemetry and Enforce would have done.',
    )
    .version(VERSION, '-v, --version')
    .addHelpText('after', TOP_HELP)
    .showHelpAfterError('(run loopledger --help for usage)')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      // commander echoes the offending argument, and a glob over hostile file names can put an
      // escape sequence there: stderr gets the same neutralizing as every other diagnostic.
      writeErr: (s) => io.stderr.write(sanitize(redactUrls(s), { multiline: true })),
    })
    .exitOverride();
  for (const register of COMMANDS) register(program, io, setExit);
  return program;
}

/**
 * `hook <agent> …` is the guard, run from its own entry (src/hook/main.ts, no commander);
 * `hook install`, `hook uninstall` and `hook doctor` are commands a person types, parsed like every other.
 */
function isGuardCall(argv: readonly string[]): boolean {
  return argv[0] === 'hook' && !['install', 'uninstall', 'doctor'].includes(argv[1] ?? '');
}

/** Run the CLI; resolves to the exit code. Never throws and never prints a stack trace. */
export async function main(argv: readonly string[], io: CliIO = defaultIO()): Promise<number> {
  let exitCode = EXIT_OK;
  const onPipeError = (e: NodeJS.ErrnoException) => {
    // `loopledger … | head` closes the pipe early: that is the reader's choice, not an error.
    if (e.code === 'EPIPE') process.exit(exitCode);
  };
  if (isGuardCall(argv)) {
    const { runHook } = await import('./hook/main.js');
    return runHook(argv.slice(1), io);
  }
  io.stdout.on('error', onPipeError);
  try {
    const program = buildProgram(io, (code) => (exitCode = code));
    const hint = refuseMistypedCommand(argv, program.commands.map((c) => c.name()));
    if (hint !== null) io.stderr.write(`loopledger: ${sanitize(hint)}\n`);
    // `-V` was the version flag before `-v`: still understood, no longer listed.
    await program.parseAsync(argv[0] === '-V' ? ['--version', ...argv.slice(1)] : [...argv], { from: 'user' });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; every usage error is 2 (commander's own default is 1).
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT_OK;
      return EXIT_USAGE;
    }
    if (e instanceof LoopledgerError) {
      io.stderr.write(`loopledger: ${sanitize(redactUrls(e.message))}\n`);
      return e.exitCode;
    }
    const err = e as Error;
    io.stderr.write(`loopledger: internal error: ${sanitize(redactUrls(err?.message ?? String(e)))}\n`);
    return EXIT_USAGE;
  } finally {
    io.stdout.off('error', onPipeError);
  }
}
