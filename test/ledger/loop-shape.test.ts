// The shape of a loop (ledger/loop-shape.ts). SPEC 0.3: "the same tool signature or finding kind
// normalised across sessions (names and argument shape, not values)". Pinned here: what one loop
// written many ways normalises to, that values never change a shape, and that a different set
// of tools always does.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchShape, callShape, findingShape, RecentBatches, scriptShape } from '../../src/ledger/loop-shape.js';

const bash = (command: string, extra: Record<string, unknown> = {}) => ({ name: 'Bash', arguments: { command, ...extra } });

describe('a shell command is its program and sub-command', () => {
  it.each([
    ['npm test', 'npm test'],
    ['npm test -- --run src/parser.test.ts', 'npm test'],
    ['cd /home/alex/src/webapp && npm test 2>&1 | tail -40', 'npm test'],
    ['CI=1 NODE_OPTIONS=--max-old-space-size=4096 npm test', 'npm test'],
    ['sudo -E timeout 60 npm test', 'npm test'],
    ['source .venv/bin/activate && python -m pytest -x tests/test_io.py', 'python -m pytest'],
    ['./node_modules/.bin/vitest run src', 'vitest'],
    ['npx vitest run --reporter=dot', 'npx vitest'],
    ['npm run build', 'npm run build'],
    ['pnpm exec tsc --noEmit', 'pnpm exec tsc'],
    ['git status --short', 'git status'],
    ['git -C repo log', 'git'],
    ['cargo test parser -- --nocapture', 'cargo test'],
    ['grep -rn "a;b|c && d" src', 'grep'],
    ["sed -n '1,20p' 'src/a b.ts'", 'sed'],
    ['cat file.txt | grep error | wc -l', 'cat'],
    ['npm run build && npm test', 'npm run build && npm test'],
    ['ls; pwd; whoami; date', 'ls && pwd && whoami && …'],
    ["python3 - <<'EOF'\nimport os\nprint(os.getcwd())\nEOF", 'python3'],
    ['# look first\nls -la', 'ls'],
    ['$(which python) script.py', '?'],
    ['cd /tmp', ''],
    ['make test', 'make test'],
    ['python manage.py test', 'python'],
  ])('%j → %j', (script, shape) => {
    expect(scriptShape(script)).toBe(shape);
  });

  it('the same loop in Claude Code, Codex (argv and a `-lc` script), Gemini CLI and mini-swe-agent', () => {
    expect(callShape(bash('npm test', { description: 'Run the failing test', timeout: 120000 }))).toBe('Bash(npm test)');
    expect(callShape({ name: 'shell', arguments: { command: ['bash', '-lc', 'cargo test parser'], workdir: '/repo' } })).toBe('shell(cargo test)');
    expect(callShape({ name: 'shell', arguments: { command: ['cargo', 'test', 'parser'] } })).toBe('shell(cargo test)');
    expect(callShape({ name: 'exec_command', arguments: { cmd: 'cargo test' } })).toBe('exec_command(cargo test)');
    expect(callShape({ name: 'run_shell_command', arguments: { command: 'npm test', description: 'x' } })).toBe('run_shell_command(npm test)');
    expect(callShape({ name: 'bash', arguments: { command: 'cd /testbed && python -m pytest tests/' } })).toBe('bash(python -m pytest)');
  });

  it('a multi-action tool is its action; any other tool is its name alone, whatever its keys', () => {
    expect(callShape({ name: 'str_replace_editor', arguments: { command: 'view', path: '/repo/a.py' } })).toBe('str_replace_editor(view)');
    expect(callShape({ name: 'str_replace_editor', arguments: { command: 'str_replace', path: '/a', old_str: 'x', new_str: 'y' } })).toBe(
      'str_replace_editor(str_replace)',
    );
    expect(callShape({ name: 'computer', arguments: { action: 'screenshot' } })).toBe('computer(screenshot)');
    expect(callShape({ name: 'computer', arguments: { action: 'Click the blue button' } })).toBe('computer');
    // Optional keys come and go inside one loop's family: Read with and without offset is one shape.
    expect(callShape({ name: 'Read', arguments: { file_path: '/a.ts' } })).toBe('Read');
    expect(callShape({ name: 'Read', arguments: { file_path: '/b.ts', offset: 40, limit: 20 } })).toBe('Read');
    // Arguments kept as a raw string (SWE-agent's command line) name nothing beyond the tool.
    expect(callShape({ name: 'find_file', arguments: 'find_file setup.py' })).toBe('find_file');
  });

  it('a tool name that could be read as shape syntax is quoted, a very long one cut', () => {
    expect(callShape({ name: 'a + b', arguments: {} })).toBe('"a + b"');
    expect(callShape({ name: '', arguments: {} })).toBe('""');
    expect(callShape({ name: 'x'.repeat(100), arguments: {} })).toBe('x'.repeat(63) + '…');
  });
});

describe('a batch is a set of calls', () => {
  it('sorted, each distinct call once', () => {
    const a = batchShape([bash('npm test'), { name: 'Read', arguments: { file_path: '/a' } }, { name: 'Read', arguments: { file_path: '/b' } }]);
    expect(a).toBe('Bash(npm test) + Read');
    expect(batchShape([{ name: 'Read', arguments: {} }, bash('npm test -- x')])).toBe(a);
  });
});

describe('a finding is shaped by what it found', () => {
  const calls = [bash('npm test'), { name: 'Read', arguments: { file_path: '/a' } }];
  it('a repeated batch by its batch', () => {
    expect(findingShape({ detector: 'tool_batch', kind: 'repeated_batch', evidence: { tools: 'Bash,Read' } }, calls)).toBe('Bash(npm test) + Read');
  });
  it('a recurring failure by the failing tool\'s own calls ("whatever the arguments", SPEC 0.2)', () => {
    expect(findingShape({ detector: 'tool_batch', kind: 'recurring_failure', evidence: { tools: 'Bash' } }, calls)).toBe('Bash(npm test)');
    expect(findingShape({ detector: 'tool_batch', kind: 'recurring_failure', evidence: { tools: 'Edit' } }, calls)).toBe('Edit');
  });
  it('a cycle by its period, from whichever batch it was entered at', () => {
    const at = (tools: string) => findingShape({ detector: 'tool_batch', kind: 'tool_cycle', evidence: { tools, period: 2 } }, calls);
    expect(at('Read>Edit+Bash>Read>Edit+Bash')).toBe('Bash + Edit > Read');
    expect(at('Edit+Bash>Read>Edit+Bash>Read')).toBe('Bash + Edit > Read');
  });
  it("a cycle's batches by their own shapes when the turn's recent batches show them, a skipped batch passed over", () => {
    const recent = new RecentBatches();
    const stash = bash('git stash');
    const pop = bash('git stash pop');
    const test = bash('npm test -- -t date');
    // The tracker saw stash > test > pop > test (period 4: stash and pop differ in value); `think` it never counted.
    for (const b of [[stash], [test], [{ name: 'think', arguments: { thought: 'hmm' } }], [pop], [test]]) recent.push(b);
    const cycle = { detector: 'tool_batch' as const, kind: 'tool_cycle' as const, evidence: { tools: 'Bash>Bash>Bash>Bash', period: 4 } };
    // Read alike without their values, the period of four is one of two.
    expect(findingShape(cycle, [test], recent)).toBe('Bash(git stash) > Bash(npm test)');
    // Evidence the recent batches cannot show (another turn's): the tool names.
    expect(findingShape({ ...cycle, evidence: { tools: 'Read>Edit', period: 2 } }, [test], recent)).toBe('Edit > Read');
    recent.reset();
    expect(findingShape(cycle, [test], recent)).toBe('Bash');
  });
  it('a text finding by its kind', () => {
    expect(findingShape({ detector: 'output', kind: 'near_repetition', evidence: {} }, calls)).toBe('near_repetition');
    expect(findingShape({ detector: 'thinking', kind: 'connector_stalling', evidence: {} }, [])).toBe('connector_stalling');
  });
});

// Arbitrary JSON values: what a transcript may put in any argument.
const value = fc.jsonValue({ maxDepth: 3 });
const SELECTORS = new Set(['command', 'cmd', 'action', 'subcommand', 'operation']);
const key = fc.string({ maxLength: 12 }).filter((k) => !SELECTORS.has(k) && k !== '__proto__');
const toolName = fc.string({ minLength: 0, maxLength: 40 });

describe('properties', () => {
  it('values never change a shape: any tool, any keys, any values', () => {
    fc.assert(
      fc.property(toolName, fc.uniqueArray(key, { maxLength: 6 }), fc.array(value, { minLength: 12, maxLength: 12 }), fc.array(value, { minLength: 12, maxLength: 12 }), (name, keys, xs, ys) => {
        const a = Object.fromEntries(keys.map((k, i) => [k, xs[i]]));
        const b = Object.fromEntries(keys.map((k, i) => [k, ys[i]]));
        expect(callShape({ name, arguments: a })).toBe(callShape({ name, arguments: b }));
      }),
    );
  });

  it("a shell command's arguments never change its shape, nor do the other keys of the call", () => {
    const program = fc.constantFrom('npm test', 'cargo test', 'git status', 'pytest', 'python -m pytest', 'npx vitest', 'ls');
    // Each argument quoted whole, as a shell would take it: its content is free text.
    const arg = fc.string({ maxLength: 30 }).map((s) => `'${s.replace(/'/g, '')}'`);
    fc.assert(
      fc.property(program, fc.array(arg, { maxLength: 5 }), fc.array(arg, { maxLength: 5 }), value, value, (p, xs, ys, d1, d2) => {
        expect(callShape(bash([p, ...xs].join(' '), { description: d1 }))).toBe(callShape(bash([p, ...ys].join(' '), { description: d2 })));
        expect(callShape(bash([p, ...xs].join(' ')))).toBe(`Bash(${p})`);
      }),
    );
  });

  it('a different set of tools always gives a different shape', () => {
    const call = fc.record({ name: toolName, arguments: fc.dictionary(key, value, { maxKeys: 3 }) });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 5 }), fc.array(call, { minLength: 1, maxLength: 5 }), (a, b) => {
        const names = (calls: { name: string }[]) => [...new Set(calls.map((c) => c.name))].sort().join('\u0000');
        fc.pre(names(a) !== names(b));
        expect(batchShape(a)).not.toBe(batchShape(b));
      }),
    );
  });

  it('batch order and repeated calls never change a shape', () => {
    const call = fc.record({ name: toolName, arguments: fc.dictionary(key, value, { maxKeys: 3 }) });
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 6 }), fc.nat(), (calls, seed) => {
        const shuffled = [...calls, calls[seed % calls.length]!].sort((x, y) => ((x.name.length * 31 + seed) % 7) - ((y.name.length * 31 + seed) % 7));
        expect(batchShape(shuffled)).toBe(batchShape(calls));
      }),
    );
  });
});
