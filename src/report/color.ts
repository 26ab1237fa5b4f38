// Colour decision. chalk's own detection ignores NO_COLOR, so the CLI decides here and hands
// chalk an explicit level (see table.ts), never touching chalk's global instance.

export interface ColorInputs {
  /** `--color` (true) / `--no-color` (false); undefined when neither was given. */
  flag: boolean | undefined;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

/** Precedence: the flag, then NO_COLOR (any non-empty value turns colour off, per no-color.org),
 *  then FORCE_COLOR (`0`/`false` off, anything else on), then whether stdout is a terminal. */
export function resolveColor({ flag, env, isTTY }: ColorInputs): boolean {
  if (flag !== undefined) return flag;
  const noColor = env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  // force-color.org: present *and non-empty*; an empty FORCE_COLOR= is treated as unset.
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') {
    const v = force.trim().toLowerCase();
    return !(v === '0' || v === 'false');
  }
  return isTTY;
}
