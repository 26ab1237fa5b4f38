// Issue 27, items 1-10: the live hook under what a real agent and a real machine give it. Each
// case is the repro, run through the built binary as the agent runs it; "fails open"
// means exit 0, nothing on stdout, one line in errors.log, and never longer than the agent's
// timeout. SPEC: "Any failure of its own (bad stdin, missing transcript, a bug) fails open: exit
// 0, nothing on stdout, one line in `<state-dir>/errors.log`."

import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync, chownSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { itWith } from '../helpers/capabilities.js';
import { ensureBuilt, ROOT, scratch } from '../cli/helpers.js';
import { denied, fakeAgent, type HookRun, type ToolUse } from '../hook/agents.js';
import { inProcess } from '../hook/inprocess.js';
import { AGENT_TIMEOUT_MS, callHook, type Delivery, type HookCall } from '../hook/process.js';

vi.setConfig({ testTimeout: 120_000 });

const tmp = scratch('loopledger-hook-live-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

let n = 0;
function fresh(name: string): { stateDir: string; session: string } {
  n += 1;
  return { stateDir: join(tmp.dir, `${name}-${n}`), session: `live-${name}-${n}` };
}

const args = (stateDir: string, ...more: string[]) => ['claude-code', '--mode', 'enforce', '--state-dir', stateDir, ...more];

/** The issue's `pay`: a PreToolUse of Bash for `session` with `transcript`. */
function pay(session: string, transcript: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ hook_event_name: 'PreToolUse', session_id: session, transcript_path: transcript, tool_name: 'Bash', tool_input: {}, tool_use_id: 't', ...extra });
}

function errors(stateDir: string): string[] {
  const path = join(stateDir, 'errors.log');
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter((l) => l !== '') : [];
}

function failedOpen(call: HookCall): void {
  expect([call.code, call.signal, call.stdout]).toEqual([0, null, '']);
  expect(call.wallMs).toBeLessThan(AGENT_TIMEOUT_MS);
  expect(call.stderr).not.toMatch(/\n\s+at /);
}

const failing: ToolUse = { name: 'Bash', input: { command: 'npm run build' }, output: "src/index.ts(3,1): error TS2304: Cannot find name 'x'.", error: true };

/**
 * A Claude Code session two identical failing batches in (run in this process, fast), whose
 * next identical batch is refused: the calls after `via()` go through the binary as delivered.
 */
function loopingSession(name: string) {
  const { stateDir, session } = fresh(name);
  let delivery: Delivery | null = null;
  let pad = 0;
  const calls: HookCall[] = [];
  const runner = async (a: readonly string[], stdin: string): Promise<HookRun> => {
    if (delivery === null) return inProcess(a, stdin);
    // Padding is a field no agent sends: the payload's meaning is intact, its size is not.
    const payload = pad > 0 ? JSON.stringify({ ...JSON.parse(stdin), padding: 'x'.repeat(pad) }) : stdin;
    const call = await callHook(a, payload, delivery);
    calls.push(call);
    return call;
  };
  const fake = fakeAgent('claude-code', { dir: tmp.dir, session, mode: 'enforce', stateDir, runner });
  return {
    fake,
    stateDir,
    calls,
    async primed() {
      fake.user('fix the build');
      await fake.round({ text: 'Running the build.', calls: [failing] });
      await fake.round({ text: 'Running the build again.', calls: [failing] });
    },
    via(d: Delivery, padding = 0) {
      delivery = d;
      pad = padding;
    },
  };
}

describe('1. payloads that arrive late or are large are read whole', () => {
  it('a payload written a second after the hook started still gets its verdict', async () => {
    const s = loopingSession('late');
    await s.primed();
    s.via({ delayMs: 1_000 });
    const third = await s.fake.round({ text: 'Once more.', calls: [failing] });
    expect(denied(third.calls[0]!.pre, 'claude-code')).toBe(true);
    expect(errors(s.stateDir)).toEqual([]);
    expect(s.calls[0]!.wallMs).toBeLessThan(AGENT_TIMEOUT_MS);
  });

  it('a 2 MB payload in pieces with pauses between them is read whole', async () => {
    const s = loopingSession('large');
    await s.primed();
    s.via({ pieces: 8, gapMs: 100 }, 2 * 1024 * 1024);
    const third = await s.fake.round({ text: 'Once more.', calls: [failing] });
    expect(denied(third.calls[0]!.pre, 'claude-code')).toBe(true);
    expect(errors(s.stateDir)).toEqual([]);
  });

  it('a writer that never closes stdin is given up on before the agent’s timeout, said in errors.log', async () => {
    const { stateDir, session } = fresh('never');
    const call = await callHook(args(stateDir), pay(session, ''), { holdOpen: true, killAfterMs: 20_000 });
    failedOpen(call);
    expect(errors(stateDir).at(-1)).toMatch(/no complete payload on stdin within 2500 ms/);
  });
});

describe('2. a FIFO as transcript is refused without being opened for a blocking read', () => {
  it('returns at once, leaves no lock, and the next call is not slowed', async () => {
    const { stateDir, session } = fresh('fifo');
    const fifo = join(tmp.dir, `named-pipe-${n}`);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const call = await callHook(args(stateDir), pay(session, fifo), { killAfterMs: 15_000 });
    failedOpen(call);
    expect(errors(stateDir).at(-1)).toMatch(/not a regular file/);
    expect(readdirSync(stateDir).filter((f) => f.endsWith('.lock'))).toEqual([]);
    const transcript = join(tmp.dir, `fifo-next-${n}.jsonl`);
    writeFileSync(transcript, '');
    const next = await callHook(args(stateDir), pay(session, transcript));
    failedOpen(next);
    expect(errors(stateDir)).toHaveLength(1);
  });
});

describe('3. the lock loop honours its deadline and does not spin', () => {
  it.each([
    ['a dangling symbolic link', (p: string) => symlinkSync('nowhere', p), /symbolic link/],
    ['a directory', (p: string) => mkdirSync(p), /directory/],
  ])('a lock that is %s fails open at once, naming it', async (_what, plant, message) => {
    const { stateDir, session } = fresh('lock');
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    plant(join(stateDir, `${session}.lock`));
    const call = await callHook(args(stateDir), pay(session, ''), { killAfterMs: 12_000 });
    failedOpen(call);
    expect(errors(stateDir).at(-1)).toMatch(message);
    expect(errors(stateDir).at(-1)).toContain(`${session}.lock`);
  });

  it('a live holder is waited for until the deadline, asleep (CPU time far below the wait)', async () => {
    const { stateDir, session } = fresh('held');
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    // This test process is alive: its pid holds the lock for as long as the call waits.
    writeFileSync(join(stateDir, `${session}.lock`), String(process.pid));
    const call = await callHook(args(stateDir), pay(session, ''), { killAfterMs: 12_000 });
    failedOpen(call);
    expect(errors(stateDir).at(-1)).toMatch(/still held/);
    expect(call.wallMs).toBeGreaterThan(2_000);
    expect(call.cpuMs).toBeLessThan(call.wallMs / 3);
  });

  it('a lock whose holder is gone (killed at the agent’s timeout) is taken over at once', async () => {
    const { stateDir, session } = fresh('dead');
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(stateDir, `${session}.lock`), String(gone));
    const call = await callHook(args(stateDir), pay(session, ''));
    failedOpen(call);
    expect(errors(stateDir)).toEqual([]);
    expect(call.wallMs).toBeLessThan(2_000);
  });
});

describe('3. a state directory the user may not write', () => {
  // Root writes anywhere: the case needs another user, which setpriv gives when this runs as root
  // (as test/robustness/walk-unreadable.cli.test.ts does).
  itWith('other-user', 'as another user, a read-only state dir of theirs: exit 0 at once, nothing on stdout, the reason on stderr (errors.log cannot be written either)', () => {
    const { stateDir, session } = fresh('readonly');
    mkdirSync(stateDir, { recursive: true });
    chownSync(stateDir, 65534, 65534);
    chmodSync(stateDir, 0o500);
    // The scratch folder is root's 0700: the other user may pass through it, not list it.
    chmodSync(tmp.dir, 0o711);
    const started = Date.now();
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, join(ROOT, 'bin', 'loopledger.js'), 'hook', ...args(stateDir)], {
      input: pay(session, ''),
      encoding: 'utf8',
      timeout: 15_000,
    });
    const wallMs = Date.now() - started;
    expect([r.status, r.signal, r.stdout]).toEqual([0, null, '']);
    // Refused at once: no lock loop waiting (or spinning) for a file it can never create.
    expect(wallMs).toBeLessThan(3_000);
    expect(r.stderr).toMatch(new RegExp(`^loopledger hook: claude-code PreToolUse ${session}: lock ${stateDir}/${session}\\.lock: EACCES.*\\(the guard is off for this call; not in errors\\.log: .*EACCES.*\\)\\n$`));
    expect(readdirSync(stateDir)).toEqual([]);
  });
});

describe('4. the first call reads at most the last 4 MB, and later calls only what is new', () => {
  it('a 200 MB transcript without a newline: each call stays small and quick, said once', async () => {
    const { stateDir, session } = fresh('zeros');
    const file = join(tmp.dir, `zeros-${n}.jsonl`);
    writeFileSync(file, '');
    truncateSync(file, 200 * 1024 * 1024);
    for (let i = 0; i < 2; i++) {
      const call = await callHook(args(stateDir), pay(session, file), { killAfterMs: 30_000 });
      failedOpen(call);
      expect(call.wallMs).toBeLessThan(2_500);
      expect(call.maxRssKb).toBeLessThan(200 * 1024);
    }
    expect(errors(stateDir)).toHaveLength(1);
    expect(errors(stateDir)[0]).toMatch(/longer than 4194304 bytes and unfinished; skipped/);
  });
});

/** A legacy Gemini JSON session (one document) of at least `bytes`, from the fixture's messages. */
function geminiDocument(bytes: number): { file: string; session: string } {
  const source = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'gemini', 'session-2026-03-01T09-00-9a8b7c6d.json'), 'utf8')) as { sessionId: string; messages: Record<string, unknown>[] };
  const messages: unknown[] = [];
  const each = JSON.stringify(source.messages, null, 2).length;
  for (let i = 0; i * each < bytes; i++) {
    for (const m of source.messages) messages.push({ ...m, id: `${String(m.id)}-${i}` });
  }
  const file = join(tmp.dir, `legacy-${n}.json`);
  writeFileSync(file, JSON.stringify({ ...source, messages }, null, 2));
  return { file, session: source.sessionId };
}

describe('5. a legacy Gemini JSON session is not parsed whole past its bound', () => {
  it('a 6 MB document: said once, each call quick, and the guard still refuses a loop from the payloads', async () => {
    const { stateDir } = fresh('legacy');
    const { file, session } = geminiDocument(6 * 1024 * 1024);
    const base = { session_id: session, transcript_path: file, tool_name: 'run_shell_command', tool_input: { command: 'npm run build' } };
    const gemini = ['gemini', '--mode', 'enforce', '--state-dir', stateDir];
    const outs: HookCall[] = [];
    for (let i = 0; i < 3; i++) {
      outs.push(await callHook(gemini, JSON.stringify({ ...base, hook_event_name: 'BeforeTool' })));
      if (outs.at(-1)!.stdout !== '') break;
      outs.push(await callHook(gemini, JSON.stringify({ ...base, hook_event_name: 'AfterTool', tool_response: { llmContent: 'error TS2304', returnDisplay: '', error: 'exit 2' } })));
    }
    for (const c of outs) {
      expect(c.code).toBe(0);
      expect(c.wallMs).toBeLessThan(2_500);
    }
    expect(errors(stateDir)).toHaveLength(1);
    expect(errors(stateDir)[0]).toMatch(/legacy JSON session larger than 2097152 bytes/);
    // Seed 000: "max_strikes = 2 allows two identical batches and errors on the third".
    expect(JSON.parse(outs.at(-1)!.stdout)).toMatchObject({ decision: 'deny' });
  });
});

describe('6. a state file of the wrong shape is started over, said once', () => {
  it.each([
    ['open.calls is not a list', (s: Record<string, unknown>) => ({ ...s, open: { calls: 5, line: null, checked: true } }), /open is not a batch/],
    ['a negative cursor offset', (s: Record<string, unknown>) => ({ ...s, cursor: { ...(s.cursor as object), offset: -5 } }), /cursor\.offset is not a count/],
    ['rounds as a string', (s: Record<string, unknown>) => ({ ...s, rounds: '3' }), /rounds is not a count/],
  ])('%s', async (_what, corrupt, message) => {
    const s = loopingSession('shape');
    await s.primed();
    const statePath = readdirSync(s.stateDir).find((f) => f.endsWith('.state.json'))!;
    const state = JSON.parse(readFileSync(join(s.stateDir, statePath), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(s.stateDir, statePath), JSON.stringify(corrupt(state)));
    s.via({});
    // The transcript is intact: started over from it, the third identical batch is still refused.
    const third = await s.fake.round({ text: 'Once more.', calls: [failing] });
    expect(third.calls[0]!.pre.code).toBe(0);
    expect(errors(s.stateDir)).toHaveLength(1);
    expect(errors(s.stateDir)[0]).toMatch(/corrupt state .* started over/);
    expect(errors(s.stateDir)[0]).toMatch(message);
    expect(denied(third.calls[0]!.pre, 'claude-code')).toBe(true);
    await s.fake.round({ text: 'Something else.', calls: [{ name: 'Bash', input: { command: 'ls' }, output: 'src' }] });
    expect(errors(s.stateDir)).toHaveLength(1);
  });
});

describe('7. stdin is capped', () => {
  it('a 40 MB payload fails open with one line naming the cap, memory bounded', async () => {
    const { stateDir, session } = fresh('cap');
    // From a file, as fast as the kernel hands it over: piped in pieces by this process on a busy
    // machine, the payload could still be arriving at the deadline, which is the other way to fail open.
    const payload = join(tmp.dir, `cap-${n}.json`);
    writeFileSync(payload, pay(session, '', { padding: 'x'.repeat(40 * 1024 * 1024) }));
    const call = await callHook(args(stateDir), '', { stdinFile: payload });
    failedOpen(call);
    expect(errors(stateDir)).toHaveLength(1);
    expect(errors(stateDir)[0]).toMatch(/larger than 33554432 bytes \(the cap on stdin\)/);
    expect(call.maxRssKb).toBeLessThan(250 * 1024);
  });

  it('/dev/zero as stdin: exit 0 before the agent’s timeout, memory bounded', async () => {
    const { stateDir } = fresh('zero');
    const call = await callHook(args(stateDir), '', { stdinFile: '/dev/zero', killAfterMs: 20_000 });
    failedOpen(call);
    expect(call.maxRssKb).toBeLessThan(250 * 1024);
    expect(errors(stateDir).at(-1)).toMatch(/cap on stdin/);
  });
});

describe('8. a reader that closed stdout (EPIPE)', () => {
  it('exits 0 without a stack trace, and says it in errors.log', async () => {
    const s = loopingSession('epipe');
    await s.primed();
    s.via({ closeStdout: true });
    await s.fake.round({ text: 'Once more.', calls: [failing] });
    const call = s.calls[0]!;
    expect([call.code, call.signal]).toEqual([0, null]);
    expect(call.stderr).toBe('');
    expect(errors(s.stateDir).at(-1)).toMatch(/stdout: EPIPE/);
  });
});

describe('9. configuration errors are said on stderr too', () => {
  it.each([
    [['--config', 'nope.json'], /nope\.json/],
    [['--set', 'no.such.key=1'], /no\.such\.key/],
  ])('%j: one line on stderr, exit 0, and errors.log', async (extra, message) => {
    const { stateDir, session } = fresh('config');
    const call = await callHook(args(stateDir, ...extra), pay(session, ''));
    failedOpen(call);
    expect(call.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(call.stderr).toMatch(message);
    expect(errors(stateDir).at(-1)).toMatch(message);
  });
});

describe('10. no link in the state directory is followed, and a directory others control is refused', () => {
  it.each(['errors.log', 'SESSION.ledger.jsonl', 'SESSION.state.json'])('a symbolic link named %s leaves its target untouched', async (name) => {
    const s = loopingSession('links');
    const target = join(tmp.dir, `target-${n}`);
    writeFileSync(target, 'precious\n');
    mkdirSync(s.stateDir, { recursive: true, mode: 0o700 });
    symlinkSync(target, join(s.stateDir, name.replace('SESSION', s.fake.session)));
    s.via({});
    await s.primed();
    // A failure, so errors.log is written to as well.
    s.calls.push(await callHook(args(s.stateDir), 'not json'));
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    for (const c of s.calls) expect([c.code, c.stdout]).toEqual([0, '']);
    expect(lstatSync(join(s.stateDir, name.replace('SESSION', s.fake.session))).isSymbolicLink()).toBe(name !== 'SESSION.state.json');
  });

  it('a state directory it creates is 0700', async () => {
    const { stateDir, session } = fresh('mode');
    const nested = join(stateDir, 'a', 'b');
    failedOpen(await callHook(args(nested), pay(session, '')));
    expect(statSync(nested).mode & 0o777).toBe(0o700);
  });

  it('a world-writable state directory without the sticky bit is refused on stderr, nothing written in it', async () => {
    const { stateDir, session } = fresh('open');
    mkdirSync(stateDir);
    chmodSync(stateDir, 0o777);
    const call = await callHook(args(stateDir), pay(session, ''));
    failedOpen(call);
    expect(call.stderr).toMatch(/writable by others and not sticky/);
    expect(readdirSync(stateDir)).toEqual([]);
  });

  it('a sticky world-writable directory (as /tmp) is accepted', async () => {
    const { stateDir, session } = fresh('sticky');
    mkdirSync(stateDir);
    chmodSync(stateDir, 0o1777);
    const transcript = join(tmp.dir, `sticky-${n}.jsonl`);
    writeFileSync(transcript, '');
    const call = await callHook(args(stateDir), pay(session, transcript));
    failedOpen(call);
    expect(call.stderr).toBe('');
    expect(readdirSync(stateDir).some((f) => f.endsWith('.state.json'))).toBe(true);
  });

  itWith('root', 'a state directory that is a link owned by another user, or a log of another user, is refused', async () => {
    const { stateDir, session } = fresh('foreign');
    const real = `${stateDir}-real`;
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, stateDir);
    lchownSync(stateDir, 65534, 65534);
    const call = await callHook(args(stateDir), pay(session, ''));
    failedOpen(call);
    expect(call.stderr).toMatch(/symbolic link owned by uid 65534/);
    expect(readdirSync(real)).toEqual([]);

    const other = fresh('planted');
    mkdirSync(other.stateDir, { mode: 0o700 });
    writeFileSync(join(other.stateDir, 'errors.log'), 'theirs\n');
    chownSync(join(other.stateDir, 'errors.log'), 65534, 65534);
    const planted = await callHook(args(other.stateDir), 'not json');
    failedOpen(planted);
    expect(readFileSync(join(other.stateDir, 'errors.log'), 'utf8')).toBe('theirs\n');
    expect(planted.stderr).toMatch(/owned by uid 65534/);
    expect(lstatSync(join(other.stateDir, 'errors.log')).uid).toBe(65534);
  });
});
