// The built hook as a real process, with the stdin an agent may really give it: a payload that
// comes late or in pieces, a large one, a device, a reader of stdout that has gone away. Reports
// the wall time, CPU time and peak memory of the call (test/hook/measured.mjs).

import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cliEnv } from '../cli/helpers.js';

const MEASURED = join(ROOT, 'test', 'hook', 'measured.mjs');

/** The agents' timeout as `hook install` writes it (5 s; notes/hooks.md: "Set the handler `timeout` to 5 s"). */
export const AGENT_TIMEOUT_MS = 5_000;

export interface HookCall {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  cpuMs: number;
  maxRssKb: number;
}

export interface Delivery {
  /** The payload, written in this many pieces (default 1). */
  pieces?: number;
  /** Before the first piece. */
  delayMs?: number;
  /** Between pieces. */
  gapMs?: number;
  /** stdin is this file (a device, a FIFO, a regular file) instead of a pipe. */
  stdinFile?: string;
  /** The reader of stdout closes it at once (`… | true`). */
  closeStdout?: boolean;
  /** stdin is never closed (a writer that hangs). */
  holdOpen?: boolean;
  /** Killed past this (a hang fails the test instead of stalling it). */
  killAfterMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function callHook(args: readonly string[], payload: string | Buffer, delivery: Delivery = {}): Promise<HookCall> {
  return new Promise((resolve, reject) => {
    const stdinFd = delivery.stdinFile ? openSync(delivery.stdinFile, 'r') : null;
    const started = performance.now();
    const child = spawn(process.execPath, [MEASURED, 'hook', ...args], {
      cwd: ROOT,
      env: cliEnv(),
      stdio: [stdinFd ?? 'pipe', 'pipe', 'pipe', 'pipe'],
    });
    if (stdinFd !== null) closeSync(stdinFd);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const usage: Buffer[] = [];
    if (delivery.closeStdout) child.stdout!.destroy();
    else child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (c: Buffer) => usage.push(c));
    const killer = setTimeout(() => child.kill('SIGKILL'), delivery.killAfterMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      const u = usage.length > 0 ? (JSON.parse(Buffer.concat(usage).toString('utf8')) as { cpuMs: number; maxRssKb: number }) : { cpuMs: NaN, maxRssKb: NaN };
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        wallMs: performance.now() - started,
        ...u,
      });
    });
    if (stdinFd !== null) return;
    const stdin = child.stdin!;
    stdin.on('error', () => {});
    void (async () => {
      const data = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
      const pieces = Math.max(1, delivery.pieces ?? 1);
      if (delivery.delayMs) await sleep(delivery.delayMs);
      const size = Math.ceil(data.length / pieces);
      for (let i = 0; i < pieces; i++) {
        if (i > 0 && delivery.gapMs) await sleep(delivery.gapMs);
        if (!stdin.write(data.subarray(i * size, (i + 1) * size))) await new Promise((r) => stdin.once('drain', r));
      }
      if (!delivery.holdOpen) stdin.end();
    })();
  });
}
