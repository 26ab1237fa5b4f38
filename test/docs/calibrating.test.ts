// docs/calibrating.md, "By hand, end to end", run as written (issue 33.5: "docs/calibrating.md
// walks the whole loop on the bundled fixtures … with the real output of each step, and a test
// runs it as written"). Every `$ ` line of the section's plain fenced blocks is run, in order, in a
// shell in a folder where `fixtures` is the bundled corpus and `loopledger` is on PATH; what it
// prints (stdout, then stderr) must be the lines under it. The ```answers.txt block is written to
// answers.txt first. DOCS_UPDATE=1 writes the outputs into the page instead (review the diff).

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, scratch } from '../cli/helpers.js';

const DOC_PATH = join(ROOT, 'docs', 'calibrating.md');
const HEADING = '### By hand, end to end: label, sweep, apply';
const tmp = scratch('loopledger-calibrating-');
afterAll(() => tmp.cleanup());

interface Step {
  command: string;
  expected: string;
}

interface Section {
  start: number;
  end: number;
  text: string;
}

function section(doc: string): Section {
  const start = doc.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`docs/calibrating.md: no "${HEADING}" section`);
  const next = doc.indexOf('\n### ', start + HEADING.length + 2);
  const end = next < 0 ? doc.length : next;
  return { start, end, text: doc.slice(start, end) };
}

/** The plain fenced blocks that start with a `$ ` command, and the file blocks, in order. */
function blocks(text: string): { lang: string; body: string; index: number; length: number }[] {
  const out: { lang: string; body: string; index: number; length: number }[] = [];
  const re = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ lang: m[1]!.trim(), body: m[2]!, index: m.index, length: m[0].length });
  return out;
}

function steps(body: string): Step[] {
  const out: Step[] = [];
  for (const line of body.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('$ ')) out.push({ command: line.slice(2), expected: '' });
    else if (out.length > 0) out[out.length - 1]!.expected += `${line}\n`;
  }
  return out;
}

const work = join(tmp.dir, 'work');

function run(command: string): string {
  const r = spawnSync('bash', ['--noprofile', '--norc', '-c', command], {
    cwd: work,
    env: { PATH: `${join(tmp.dir, 'bin')}:${process.env['PATH'] ?? ''}`, HOME: tmp.dir, NO_COLOR: '1', COLUMNS: '100', LANG: 'C.UTF-8' },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return `${r.stdout}${r.stderr}`;
}

beforeAll(() => {
  ensureBuilt();
  mkdirSync(join(tmp.dir, 'bin'), { recursive: true });
  const bin = join(tmp.dir, 'bin', 'loopledger');
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'bin', 'loopledger.js')}" "$@"\n`);
  chmodSync(bin, 0o755);
  mkdirSync(work, { recursive: true });
  symlinkSync(join(ROOT, 'fixtures'), join(work, 'fixtures'));
});

describe('docs/calibrating.md: by hand, end to end', () => {
  it('every command prints what the page says it prints', () => {
    const doc = readFileSync(DOC_PATH, 'utf8');
    const sec = section(doc);
    const found = blocks(sec.text);
    const commands = found.filter((b) => b.lang === '' && b.body.startsWith('$ '));
    // analyze, label (listing; batch and its file), page, interrupts, sweep, apply, analyze again
    expect(commands.length).toBe(8);
    const answers = found.find((b) => b.lang === 'answers.txt');
    expect(answers, 'the ```answers.txt block').toBeDefined();
    writeFileSync(join(work, 'answers.txt'), answers!.body);

    let updated = sec.text;
    const replacements: { from: number; to: number; text: string }[] = [];
    for (const block of commands) {
      const got = steps(block.body).map((s) => ({ ...s, actual: run(s.command) }));
      if (process.env['DOCS_UPDATE']) {
        replacements.push({ from: block.index, to: block.index + block.length, text: `\`\`\`\n${got.map((s) => `$ ${s.command}\n${s.actual}`).join('')}\`\`\`` });
      } else {
        for (const s of got) expect(s.actual, `$ ${s.command}`).toBe(s.expected);
      }
    }
    if (process.env['DOCS_UPDATE']) {
      for (const r of replacements.reverse()) updated = updated.slice(0, r.from) + r.text + updated.slice(r.to);
      writeFileSync(DOC_PATH, doc.slice(0, sec.start) + updated + doc.slice(sec.end));
    }
  }, 300_000);
});
