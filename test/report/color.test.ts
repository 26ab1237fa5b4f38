import { describe, expect, it } from 'vitest';
import { resolveColor } from '../../src/report/color.js';

describe('resolveColor precedence: flag, NO_COLOR, FORCE_COLOR, TTY', () => {
  const cases: [boolean | undefined, Record<string, string>, boolean, boolean][] = [
    // flag wins over everything
    [true, { NO_COLOR: '1' }, false, true],
    [false, { FORCE_COLOR: '1' }, true, false],
    [false, {}, true, false],
    [true, {}, false, true],
    // NO_COLOR: any non-empty value turns colour off, even with FORCE_COLOR and a TTY
    [undefined, { NO_COLOR: '1' }, true, false],
    [undefined, { NO_COLOR: '0' }, true, false],
    [undefined, { NO_COLOR: 'yes', FORCE_COLOR: '1' }, true, false],
    [undefined, { NO_COLOR: '' }, true, true],
    [undefined, { NO_COLOR: '' }, false, false],
    // FORCE_COLOR: 0/false off, anything else on, empty as if unset
    [undefined, { FORCE_COLOR: '1' }, false, true],
    [undefined, { FORCE_COLOR: '3' }, false, true],
    [undefined, { FORCE_COLOR: 'true' }, false, true],
    [undefined, { FORCE_COLOR: '0' }, true, false],
    [undefined, { FORCE_COLOR: 'false' }, true, false],
    [undefined, { FORCE_COLOR: 'FALSE' }, true, false],
    [undefined, { FORCE_COLOR: '' }, true, true],
    [undefined, { FORCE_COLOR: '' }, false, false],
    // then the terminal
    [undefined, {}, true, true],
    [undefined, {}, false, false],
  ];
  it.each(cases)('flag %s env %j tty %s -> %s', (flag, env, isTTY, expected) => {
    expect(resolveColor({ flag, env, isTTY })).toBe(expected);
  });
});
