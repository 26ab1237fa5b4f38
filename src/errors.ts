// Errors that end a command carry their exit code, so the CLI can map any of them without
// knowing where they came from. Anything else that escapes is a bug, reported without a stack.

export const EXIT_OK = 0;
/** A session reached `--fail-on`. */
export const EXIT_FAIL_ON = 1;
/** Usage error, unreadable path, no input, malformed input under --strict. */
export const EXIT_USAGE = 2;

export class LoopledgerError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
    this.name = 'LoopledgerError';
  }
}

/** A bad flag, key or value: exit 2. */
export class UsageError extends LoopledgerError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

/** Unknown key or a value of the wrong type in --config / --set: exit 2. */
export class ConfigError extends LoopledgerError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'ConfigError';
  }
}

/** A path that cannot be read, no input at all, or malformed input under --strict: exit 2. */
export class InputError extends LoopledgerError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'InputError';
  }
}
