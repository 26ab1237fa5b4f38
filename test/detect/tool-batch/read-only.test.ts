// SPEC 0.3 "Read-only by command": "`tool_batch.observation_tools` entries may be tool names (as
// before) or permission-rule patterns `Tool(command prefix:*)`: `Bash(cat:*)`, `Bash(git status:*)`,
// `shell(rg:*)`. A compound command matches only when every part matches and nothing writes (no
// redirection, `tee`, in-place edits, `-exec`, …)." The table of what counts is docs/read-only.md.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileObservationPatterns } from '../../../src/detect/tool-batch/patterns.js';
import { parseCommandLine } from '../../../src/detect/tool-batch/shell.js';
import { createToolBatchDetector } from '../../../src/detect/tool-batch/index.js';
import { defaultToolBatchConfig } from '../../../src/detect/tool-batch/config.js';
import { Rounds } from './rounds.js';

const PREFIXES = ['cat', 'head', 'tail', 'grep', 'rg', 'ls', 'wc', 'pwd', 'cd', 'echo', 'find', 'sed', 'sort', 'nl', 'xargs', 'git status', 'git log', 'git diff', 'git show'];
const TOOLS = ['Bash', 'bash', 'shell', 'run_shell_command', 'execute_bash', 'exec_command'];
const RULES = TOOLS.flatMap((t) => PREFIXES.map((p) => `${t}(${p}:*)`));
const classify = compileObservationPatterns(RULES);
const bash = (command: string) => classify({ id: null, name: 'Bash', arguments: { command } });

// Commands chosen from ../shared/research-samples and ../shared/recordings (Claude Code, Codex,
// Gemini CLI, OpenHands, SWE-agent, mini-swe-agent), written here with the verdict a reader gives.
const CORPUS: readonly (readonly [command: string, readOnly: boolean])[] = [
  ["sed -n '108,160p' src/App.tsx", true],
  ['rg -n "log-server\\.mjs|scripts/log-server" -n', true],
  ["cd /testbed && sed -n '2820,2830p' astropy/modeling/core.py", true],
  ['cd /testbed && grep -n "separable" astropy/modeling/core.py | head -30', true],
  ['cat ./django/utils/autoreload.py | grep -n "def run_with_reloader" -A 50', true],
  ["cd /testbed && cat ./django/utils/autoreload.py | sed -n '110,140p'", true],
  ['find . -type f -name "*.py" | grep -E "(url|path|converter|404)" | head -20', true],
  ['cd /testbed && find / -name "erfa*" -type f 2>/dev/null', true],
  ['cd /testbed && git log --oneline django/utils/autoreload.py --since="2019-01-01" | head -20', true],
  ['cd /testbed && git show 6754bffa2b --stat', true],
  ['cd /testbed && git diff astropy/modeling/separable.py', true],
  ["nl -ba src/App.tsx | sed -n '640,740p'", true],
  ['echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt', true],
  ['rg -n --hidden -S "Python|python" | sed -n \'1,200p\'', true],
  ['grep -r "converter.to_python" . --include="*.py" | grep -v test | grep -v ".pyc"', true],
  ['ls -la /workspace/django__django__3.0/', true],
  ["cat job.output | grep -oP 'Processing pattern \\K\\d+' | tail -1", true],
  ['git status', true],
  ['git status --short', true],
  ['cat nonexistent.txt', true],
  // Writes, runs or cannot be read surely:
  ["sed -i '27afrom django.http import Http404' django/urls/resolvers.py", false],
  ["cd /testbed && sed -i 's/cright = 1/cright = right/' astropy/modeling/separable.py", false],
  ['cd /testbed && find django -name "*.py" -type f -exec grep -l "AutocompleteJsonView" {} \\; 2>/dev/null', false],
  ['git diff -- django/urls/resolvers.py > patch.txt', false],
  ['echo "int main() { return 0; }" > /workspace/test.c', false],
  ["cat > reproduce_issue.py << 'EOF'\nfrom marshmallow import Schema\nEOF", false],
  ['cd /testbed && CFLAGS="-I/opt/miniconda3/include" python setup.py build_ext --inplace 2>&1 | tail -3', false],
  ['cd /testbed && pip install numpy 2>&1 | tail -3', false],
  ['python test_field_resolution.py 2>&1 | head -50', false],
  ['cp src/marshmallow/schema.py src/marshmallow/schema.py.fixed', false],
  ['patch -p1 < simple.patch', false],
  ["git add . && git commit -m 'Add hello function'", false],
  ['rm /home/wei/repo/claude-code/TODO.md', false],
  ['export LLVM_DIR=/usr/lib/llvm-14/cmake && cd /workspace/ponylang__ponyc__0.1 && make', false],
  ['cd /workspace/todo-app && python3 -m http.server 8000', false],
  ['LINE=$(grep -n "def _invoke" src/marshmallow/schema.py | cut -d: -f1)', false],
];

describe('observation_tools rules classify shell commands (docs/read-only.md)', () => {
  it.each(CORPUS)('%j: read-only %s', (command, readOnly) => {
    expect(bash(command).readOnly).toBe(readOnly);
  });

  it('says why a command is not read-only', () => {
    expect(bash('ls | tee out').reason).toBe('may write: tee');
    expect(bash('grep x a > b').reason).toBe('writes: > b');
    expect(bash('python x.py').reason).toBe('`python x.py` is not listed');
    expect(bash('cat $(ls)').reason).toMatch(/^command not read: command substitution/);
    expect(bash('FOO=1 cat x').reason).toBe('an environment assignment before the command');
    expect(bash('cat a | grep b').reason).toBe('2 read-only commands');
  });

  it('output to /dev/null or another descriptor writes nothing; to a file it does', () => {
    for (const c of ['grep x f 2>/dev/null', 'grep x f 2>&1 | head', 'ls >/dev/null', 'ls &>/dev/null', 'cat f < in']) expect(bash(c).readOnly, c).toBe(true);
    for (const c of ['grep x f 2>err.log', 'ls >> log', 'ls &> out', 'ls >| out', 'ls 1>out', 'cat <> f']) expect(bash(c).readOnly, c).toBe(false);
  });

  it('xargs is as read-only as the command it runs', () => {
    expect(bash('find . -name "*.py" | xargs grep -l foo').readOnly).toBe(true);
    expect(bash('find . -name "*.pyc" | xargs rm').readOnly).toBe(false);
    expect(bash('find . -name "*.pyc" | xargs -n 1 rm -f').readOnly).toBe(false);
    expect(bash('find . -delete').readOnly).toBe(false);
  });

  it('a rule prefix matches whole words, and an exact rule only the exact command', () => {
    const c = compileObservationPatterns(['Bash(git status:*)', 'Bash(npm test)']);
    const call = (command: string) => c({ id: null, name: 'Bash', arguments: { command } }).readOnly;
    expect(call('git status --short')).toBe(true);
    expect(call('git statusx')).toBe(false);
    expect(call('git stash')).toBe(false);
    expect(call('npm test')).toBe(true);
    expect(call('npm test -- --watch')).toBe(false);
    expect(compileObservationPatterns(['Bash(cat:*)'])({ id: null, name: 'Bash', arguments: { command: 'catalog x' } }).readOnly).toBe(false);
  });

  it('reads the command where each agent carries it', () => {
    const c = compileObservationPatterns(['Bash(cat:*)', 'shell(rg:*)', 'exec_command(rg:*)', 'run_shell_command(tail:*)']);
    expect(c({ id: null, name: 'shell', arguments: { command: ['bash', '-lc', 'rg -n foo src'] } }).readOnly).toBe(true);
    expect(c({ id: null, name: 'shell', arguments: { command: ['rg', '-n', 'a > b'] } }).readOnly).toBe(true);
    expect(c({ id: null, name: 'shell', arguments: { command: ['bash', '-lc', 'rg -n foo > out'] } }).readOnly).toBe(false);
    expect(c({ id: null, name: 'exec_command', arguments: { cmd: 'rg foo' } }).readOnly).toBe(true);
    expect(c({ id: null, name: 'run_shell_command', arguments: { command: 'tail -5 log' } }).readOnly).toBe(true);
    // The rule names the tool: a Bash rule does not make a run_shell_command call read-only.
    expect(c({ id: null, name: 'run_shell_command', arguments: { command: 'cat x' } }).readOnly).toBe(false);
    expect(c({ id: null, name: 'Bash', arguments: { path: 'x' } }).reason).toBe('no command in the call');
  });

  it('plain tool names keep their meaning beside rules', () => {
    const c = compileObservationPatterns(['Read', 'Bash(cat:*)']);
    expect(c({ id: null, name: 'Read', arguments: { file_path: 'a' } })).toEqual({ readOnly: true, reason: 'a read-only tool' });
    expect(c({ id: null, name: 'Edit', arguments: {} }).readOnly).toBe(false);
  });

  it('the tokenizer honours quotes and escapes', () => {
    expect(parseCommandLine(`grep "a | b" 'c && d' e\\;f`)).toEqual({ ok: true, commands: [{ words: ['grep', 'a | b', 'c && d', 'e;f'], writes: null, assignments: 0 }] });
    expect(parseCommandLine('cat "unterminated')).toEqual({ ok: false, reason: 'an unterminated quote' });
    expect(parseCommandLine('sleep 5 &').ok).toBe(false);
    expect(parseCommandLine('(cd x && rm y)').ok).toBe(false);
  });

  // The issue: "a property test that no writing command is ever classified read-only".
  it('no generated writing command is classified read-only', () => {
    const word = fc.constantFrom('a.txt', 'src/x.ts', '-n', '"a b"', "'q'", 'foo', '*.py', '10', '-la', '--stat');
    const reader = fc.tuple(fc.constantFrom(...PREFIXES), fc.array(word, { maxLength: 3 })).map(([p, ws]) => [p, ...ws].join(' '));
    const writer = fc.oneof(
      fc.tuple(reader, fc.constantFrom('>', '>>', '&>', '2>', '1>', '>|'), fc.constantFrom('out', 'a.txt', '/tmp/x', '"o u t"')).map(([r, op, t]) => `${r} ${op} ${t}`),
      reader.map((r) => `${r} | tee out`),
      fc.constantFrom("sed -i 's/a/b/' f", 'sed -i.bak 1d f', "sed --in-place -e 's/a/b/' f", "sed -n 'w out' f", "sed 's/a/b/w out' f", "sed '1e rm x' f", 'sed -ni p f'),
      fc.constantFrom('find . -delete', 'find . -exec rm {} \\;', 'find . -execdir touch x \\;', 'find . -fprint out', 'find . -ok rm {} \\;'),
      fc.constantFrom('xargs rm', 'xargs -n 1 rm -rf', 'xargs -I {} mv {} /tmp', 'xargs', 'sort -o out in', 'git diff --output=p.patch', 'rg --pre sh x'),
      fc.constantFrom('rm -rf x', 'mv a b', 'cp a b', 'touch x', 'python x.py', 'npm install', 'make', 'git commit -m x', 'git checkout x', 'chmod +x f'),
      fc.tuple(reader, fc.constantFrom('$(rm x)', '`rm x`', '"$(touch y)"', '<(rm x)', '>(cat)')).map(([r, s]) => `${r} ${s}`),
      reader.map((r) => `X=1 ${r}`),
      reader.map((r) => `(${r})`),
      reader.map((r) => `${r} &`),
      reader.map((r) => `cat > f << EOF\n${r}\nEOF`),
    );
    const script = fc.tuple(fc.array(reader, { maxLength: 2 }), writer, fc.array(reader, { maxLength: 2 }), fc.constantFrom(' | ', ' && ', ' || ', '; ', '\n'))
      .map(([before, w, after, sep]) => [...before, w, ...after].join(sep));
    fc.assert(
      fc.property(script, fc.constantFrom(...TOOLS), (command, tool) => {
        const args = tool === 'exec_command' ? { cmd: command } : tool === 'shell' ? { command: ['bash', '-lc', command] } : { command };
        expect(classify({ id: null, name: tool, arguments: args }).readOnly).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a read-only command batch gets seed 000\'s read-only tier', () => {
  const config = { ...defaultToolBatchConfig(), observationTools: ['Bash(cat:*)', 'Bash(grep:*)', 'Bash(tail:*)'] };

  it('the 49 polls of a growing job, answered with a larger number each time, are never refused', () => {
    const d = createToolBatchDetector(config);
    const r = new Rounds();
    const poll = ['Bash', { command: "cat job.output | grep -oP 'Processing pattern \\K\\d+' | tail -1" }] as const;
    for (let i = 1; i <= 49; i++) {
      const obs = d.observe(r.batch([poll], [String(i * 7)]));
      expect(obs.findings.some((f) => f.loop)).toBe(false);
    }
  });

  // Issue 28 item 2: "the same unchanged file read ... is still caught"; a read that fails reads
  // nothing, so its identical retry is a failing call like any other, not a poll.
  it('the same failing cat three times is refused at the third, as a mutating call is (max_strikes)', () => {
    const d = createToolBatchDetector(config);
    const r = new Rounds();
    const cat = ['Bash', { command: 'cat missing.txt' }] as const;
    const all = [1, 2, 3].map(() => d.observe(r.batch([cat], ['cat: missing.txt: No such file or directory'], true)).findings);
    expect(all[0]).toEqual([]);
    expect(all[1]!.map((f) => [f.loop, f.evidence['read_only'], f.evidence['read_only_reason']])).toEqual([[false, false, 'a read-only command whose last answer was an error']]);
    const stop = all[2]!.find((f) => f.loop)!;
    expect(stop).toMatchObject({ kind: 'repeated_batch', strike: { count: 3, threshold: 2, read_only: false } });
  });

  it('a failure written into the text counts as one (answerFailed), and the demotion lasts only while the last answer failed', () => {
    const d = createToolBatchDetector(config);
    const r = new Rounds();
    const cat = ['Bash', { command: 'cat build.log | tail -1' }] as const;
    // the first answer succeeds: the second occurrence keeps the read-only tier
    expect(d.observe(r.batch([cat], ['step 1'])).findings).toEqual([]);
    expect(d.observe(r.batch([cat], ['Error: build.log is locked'])).findings).toEqual([]);
    // the previous answer failed (by its text): this occurrence is in max_strikes' tier, and it succeeds
    const third = d.observe(r.batch([cat], ['step 2'])).findings;
    expect(third).toEqual([]);
    // back to a success: the next occurrences are read-only again, so the same answer repeats freely
    for (let i = 0; i < 10; i++) expect(d.observe(r.batch([cat], ['step 2'])).findings.some((f) => f.loop)).toBe(false);
  });

  it('a tool read-only by its name keeps seed 000\'s tier when it fails (the browser tools are the seed\'s)', () => {
    const d = createToolBatchDetector({ ...config, observationTools: ['click'] });
    const r = new Rounds();
    const click = ['click', { ref: 'e12' }] as const;
    for (let i = 1; i <= 15; i++) expect(d.observe(r.batch([click], ['Error: element not found'], true)).findings.some((f) => f.loop), `occurrence ${i}`).toBe(false);
    expect(d.observe(r.batch([click], ['Error: element not found'], true)).findings.some((f) => f.loop)).toBe(true);
  });

  it('the failed read survives a snapshot (the live hook saves state between calls)', () => {
    const d = createToolBatchDetector(config);
    const r = new Rounds();
    const cat = ['Bash', { command: 'cat missing.txt' }] as const;
    d.observe(r.batch([cat], ['cat: missing.txt: No such file or directory'], true));
    d.observe(r.batch([cat], ['cat: missing.txt: No such file or directory'], true));
    const state = JSON.parse(JSON.stringify(d.snapshot()));
    expect(state.loop.run.failed).toBe(true);
    const resumed = createToolBatchDetector(config);
    resumed.restore(state);
    expect(resumed.observe(r.batch([cat], ['cat: missing.txt: No such file or directory'], true)).findings.some((f) => f.loop)).toBe(true);
    // a state that never saw a failure is written as before: no `failed` key
    const calm = createToolBatchDetector(config);
    calm.observe(new Rounds().batch([cat], ['hello']));
    expect(JSON.stringify(calm.snapshot())).not.toContain('failed');
  });

  it('its evidence names the class and the reason; a refused batch says how its answers compared, not "refused"', () => {
    const costly = { ...config, maxObservationSteps: 3, costlyTools: ['Bash'] };
    const d = createToolBatchDetector(costly);
    const r = new Rounds();
    const poll = ['Bash', { command: 'cat job.output | tail -1' }] as const;
    const all = [1, 2, 3, 4].map((i) => d.observe(r.batch([poll], [String(i)])).findings);
    const stop = all[3]!.find((f) => f.loop)!;
    expect(stop.kind).toBe('ceiling');
    expect(stop.evidence).toMatchObject({ read_only: true, read_only_reason: '2 read-only commands', answers: 'changed', refused: true });
    const w = createToolBatchDetector(config);
    const wr = new Rounds();
    const write = ['Bash', { command: 'cat a > b' }] as const;
    const f = [1, 2, 3].map(() => w.observe(wr.batch([write], ['ok'])).findings).flat();
    expect(f.at(-1)!.evidence).toMatchObject({ read_only: false, read_only_reason: 'writes: > b', answers: 'repeated', refused: true });
  });
});
