// `loopledger hook install|uninstall|doctor`: commands a person types, parsed here.
// The guard itself (`loopledger hook <agent>`, which the agent runs on every tool call) has its
// own entry module without commander (src/hook/main.ts); it is listed here for --help only.

import { Argument, Option, type OptionValues } from 'commander';
import { doctor } from '../hook/doctor.js';
import { guardArgsFrom } from '../hook/install.js';
import { installGuard } from '../hook/install-files.js';
import { uninstallHook } from '../hook/uninstall.js';
import { AGENTS, type Agent } from '../hook/payload.js';
import { type Mode, MODES } from '../vocabulary.js';
import { EXIT_OK } from '../errors.js';
import { choice, flag, type RegisterCommand, text } from './flags.js';

const agentArgument = () => new Argument('<agent>', 'the agent whose settings hold the guard').choices(AGENTS);

interface InstallOptions {
  scope: 'project' | 'user';
  write: boolean;
  mode?: Mode;
  stateDir?: string;
  config?: string;
}

function installOptions(raw: OptionValues): InstallOptions {
  return {
    scope: flag(raw, 'user') ? 'user' : 'project',
    write: flag(raw, 'write') ?? false,
    mode: choice(raw, 'mode', MODES),
    stateDir: text(raw, 'stateDir'),
    config: text(raw, 'config'),
  };
}

export const registerHookCommands: RegisterCommand = (program, io, setExit) => {
  // The folder install, uninstall and doctor work in: main's (CliIO.cwd), else the process's, read when the command runs.
  const projectFolder = (): string => io.cwd ?? process.cwd();
  const hook = program
    .command('hook')
    .description(`the live guard inside ${AGENTS.join(', ')} (loopledger hook --help)`)
    .usage('<agent> [--mode off|telemetry|enforce] [--config FILE] [--set K=V] [--state-dir DIR]')
    .allowUnknownOption()
    .argument('[args...]');

  hook
    .command('install')
    .description(
      "print the settings entry (or the files) that run the guard, or merge it into the agent's settings file (--write; a .bak " +
        'of the file is kept; OpenCode, Kilo: a plugin file; Cline: its hook files), then check with hook doctor that the command it wrote answers',
    )
    .addArgument(agentArgument())
    .option('--project', "the project's settings (.claude/settings.json, .codex/hooks.json, …: docs/hook.md; the default)")
    .addOption(new Option('--user', "the user's settings (the same under $HOME; Codex's in $CODEX_HOME, default ~/.codex)").conflicts('project'))
    .option('--write', 'merge the entry into the file instead of printing it')
    .addOption(new Option('--mode <mode>', 'the mode the guard runs in (default: the configuration\'s, telemetry)').choices(MODES))
    .option('--state-dir <dir>', "the guard's state folder (made absolute)")
    .option('--config <file>', "the guard's configuration file (made absolute)")
    .action(async (agent: Agent, raw: OptionValues) => {
      const opts = installOptions(raw);
      const cwd = projectFolder();
      const checkAfterWrite = async () => {
        const result = await doctor(agent, { env: io.env, cwd });
        for (const l of result.lines) io.stderr.write(`loopledger hook doctor: ${l.line}\n`);
        if (!result.ok) io.stderr.write(`loopledger: warning: the installed hook did not answer the probe, or was not run (see above): the agent may run without the guard\n`);
      };
      setExit(await installGuard({ agent, scope: opts.scope, write: opts.write, guardArgs: guardArgsFrom(opts, cwd) }, { ...io, cwd }, checkAfterWrite));
    });

  hook
    .command('uninstall')
    .description("remove only loopledger's entries from the agent's settings (or its guard files), every other byte kept; prints the result without --write, as install does")
    .addArgument(agentArgument())
    .option('--project', "the project's settings (the default)")
    .addOption(new Option('--user', "the user's settings").conflicts('project'))
    .option('--write', 'write the change instead of printing it')
    .action((agent: Agent, raw: OptionValues) => {
      const scope = flag(raw, 'user') ? 'user' : 'project';
      setExit(uninstallHook({ agent, scope, write: flag(raw, 'write') ?? false }, { ...io, cwd: projectFolder() }));
    });

  hook
    .command('doctor')
    .description(
      "run the guard command the agent's project and user settings hold, as the agent would (sh -c, from this folder, " +
        'with this environment, a probe payload on stdin): one line each, whether it answered and in how many ms; exit 0 ok, 1 not. ' +
        'Only a command hook install writes is run: any other is reported (foreign, modified), never run',
    )
    .addArgument(agentArgument())
    .action(async (agent: Agent) => {
      const result = await doctor(agent, { env: io.env, cwd: projectFolder() });
      for (const l of result.lines) io.stdout.write(`loopledger hook doctor: ${l.line}\n`);
      setExit(result.ok ? EXIT_OK : 1);
    });
};
