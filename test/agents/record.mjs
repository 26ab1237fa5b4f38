#!/usr/bin/env node
// Records one transcript per agent at its pinned version into fixtures/agents/<agent>-<version>/
// (a new pinned version records new fixtures): the script below, under enforce, so the recording
// holds thinking, text, two failing calls, the refused third and what the agent did after it.
// Usage: node test/agents/record.mjs [agent ...]   (after node test/agents/install.mjs)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AGENTS, ensureAgent } from './install.mjs';
import { ROOT, runAgent, SHELL } from './harness.mjs';

export function recordingScript(agent) {
  const call = SHELL[agent]('cat missing.txt');
  return (v) => {
    if (v.modelTurns === 0) return { thinking: 'The user wants the file read; start there.', text: 'Reading missing.txt first.', calls: [call] };
    if (v.modelTurns < 3) return { calls: [call] };
    return { text: 'missing.txt does not exist, so there is nothing to fix.' };
  };
}

// The agents write their own system prompts, tool descriptions and skill listings into their
// transcripts (Claude Code's prompt snapshots, Codex's base instructions): text of theirs, not
// ours to commit. Every string over 400 characters is replaced by a marker of its length; the
// conversation itself (short prompts, calls and answers) is kept as written.
const LONG = 400;
function redact(value) {
  if (typeof value === 'string') return value.length > LONG ? `[${value.length} characters of the agent's own text, left out]` : value;
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v)]));
  return value;
}
function redactLines(text) {
  return text
    .split('\n')
    .map((line) => (line.trim() === '' ? line : JSON.stringify(redact(JSON.parse(line)))))
    .join('\n');
}

/** Where the recording came from, beside it (test/agents-read/registry.test.ts asks for one). */
function readme(agent, version) {
  return `# ${agent}-${version}

Recorded by \`node test/agents/record.mjs\` (test/agents/) with the agent at version ${version}, driven by the scripted model server of test/agents/servers/: three identical failing \`cat missing.txt\` calls (the third refused by the live guard under enforce), then a final answer. test/agents/fixtures.test.ts gives the counts it must read as.
`;
}

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(AGENTS);
for (const agent of wanted) {
  const got = ensureAgent(agent);
  if (got.skip) {
    console.error(`${agent}: skipped: ${got.skip}`);
    continue;
  }
  const run = await runAgent(agent, { script: recordingScript(agent), mode: 'enforce', prompt: 'Read missing.txt and fix it.' });
  const out = join(ROOT, 'fixtures', 'agents', `${agent}-${AGENTS[agent].version}`);
  // A new recording replaces the last one of this version: one transcript per agent and version.
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const t of run.transcripts) writeFileSync(join(out, basename(t)), redactLines(readFileSync(t, 'utf8')));
  writeFileSync(join(out, 'README.md'), readme(agent, AGENTS[agent].version));
  console.log(`${agent}: exit ${run.result.code}, ${run.transcripts.length} transcript(s) -> ${out}`);
}
