// Issue 53, item 3: judge.cache is written in place, like the settings `hook install` edits: a
// cache that is a link (committed in a dotfiles or CI repository) stays a link and its target gets
// the verdicts, its mode is kept, and a read-only cache is left untouched with a clear warning.

import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, scratch } from '../cli/helpers.js';
import { clearing, type JudgeServer, startJudgeServer } from './helpers.js';

const TEMPLATE = 'fixtures/calibration/claude-code/clean-review-template.jsonl';
const EMPTY = '{\n  "schema": "loopledger/judge-cache/1",\n  "verdicts": {}\n}\n';
const tmp = scratch('loopledger-judge-cache-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

let server: JudgeServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const judge = (url: string, cache: string) => ['--json', '--set', `judge.endpoint=${url}`, '--set', 'judge.model=gpt-4o-mini', '--set', `judge.cache=${cache}`];

describe('judge.cache is written in place', { timeout: 60_000 }, () => {
  it('a link stays a link, its target gets the verdict, a 0600 cache stays 0600', async () => {
    const target = tmp.write('dotfiles/judge-cache.json', EMPTY);
    chmodSync(target, 0o600);
    mkdirSync(join(tmp.dir, 'ci'), { recursive: true });
    const link = join(tmp.dir, 'ci', 'judge.cache.json');
    symlinkSync(target, link);
    server = await startJudgeServer(() => clearing());
    const r = await runCli([TEMPLATE, ...judge(server.url, link)]);
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(Object.keys((JSON.parse(readFileSync(target, 'utf8')) as { verdicts: object }).verdicts)).toHaveLength(1);
    expect(statSync(target).mode & 0o777).toBe(0o600);
  });

  it('a read-only cache (0444) is not replaced: a warning says why, the run goes on', async () => {
    const cache = tmp.write('ro/judge-cache.json', EMPTY);
    chmodSync(cache, 0o444);
    server = await startJudgeServer(() => clearing());
    const r = await runCli([TEMPLATE, ...judge(server.url, cache)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`judge.cache ${cache}: cannot write it: it is read-only (mode 0444)`);
    expect(readFileSync(cache, 'utf8')).toBe(EMPTY);
    expect(statSync(cache).mode & 0o777).toBe(0o444);
  });
});
