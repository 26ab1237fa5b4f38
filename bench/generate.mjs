// Generates a large, realistic Claude Code JSONL transcript for `npm run bench`: deterministic
// (seeded), written as a stream so the generator itself never holds the file in memory.
// Rounds carry thinking, text and parallel tool calls answered in the next user line; every so
// often the agent loops (the same failing batch several times, or a chanted paragraph).

import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the build failed because a module could not be resolved so I will check the import path and the ' +
  'package manifest before running the tests again with verbose output to see which assertion breaks ' +
  'config loader parser reader stream buffer handler request response cache index schema migration ' +
  'function variable constant interface type class method property argument return value error ' +
  'database query table column row transaction commit rollback lock timeout retry backoff'
).split(' ');

const SYL = 'ka ro mi tel sun dra ven lo pra zi mor qua bel fin gri sto nev ul tor es an vi den sar cor pil mut hex yon rab'.split(' ');

/**
 * Write a Claude Code transcript of about `targetBytes`. `profile: 'text'` makes it heavy in
 * assistant text and thinking (about 110 KB of visible text per MB, as real long sessions are):
 * markdown answers with headings, lists and code, long thinking, shorter tool results, and a
 * vocabulary large enough that calm prose does not look like a loop.
 */
export async function generate(path, targetBytes, seed = 42, { profile = 'default', sessionId: sid, model = 'claude-sonnet-4-5-20250929' } = {}) {
  const rand = rng(seed);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const sentence = (n) => {
    const w = [];
    for (let i = 0; i < n; i++) w.push(pick(WORDS));
    const s = w.join(' ');
    return s[0].toUpperCase() + s.slice(1) + '.';
  };
  const paragraph = (sentences) => Array.from({ length: sentences }, () => sentence(8 + Math.floor(rand() * 14))).join(' ');
  const text = profile === 'text';
  // The text profile's words: common words and invented ones, so n-grams rarely repeat by chance.
  const word = () => {
    if (rand() < 0.5) return pick(WORDS);
    let x = '';
    for (let k = 2 + Math.floor(rand() * 2); k > 0; k--) x += pick(SYL);
    return x;
  };
  const prose = (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const w = [];
      for (let k = 8 + Math.floor(rand() * 14); k > 0; k--) w.push(word());
      const s = w.join(' ');
      out.push(s[0].toUpperCase() + s.slice(1) + (rand() < 0.1 ? '?' : '.'));
    }
    return out.join(' ');
  };
  const markdown = () => {
    const parts = [];
    for (let n = 1 + Math.floor(rand() * 6); n > 0; n--) {
      const r = rand();
      if (r < 0.12) parts.push(`## ${prose(1).slice(0, 40)}`);
      else if (r < 0.3) parts.push(Array.from({ length: 2 + Math.floor(rand() * 5) }, () => `- ${prose(1)}`).join('\n'));
      else if (r < 0.4) parts.push('```ts\n' + Array.from({ length: 3 + Math.floor(rand() * 12) }, () => `const ${word()} = ${word()}(${word()}, ${Math.floor(rand() * 100)});`).join('\n') + '\n```');
      else if (r < 0.45) parts.push(`| ${word()} | ${word()} |\n|---|---|\n` + Array.from({ length: 2 + Math.floor(rand() * 4) }, () => `| ${word()} | ${prose(1)} |`).join('\n'));
      else parts.push(prose(2 + Math.floor(rand() * 5)));
    }
    return parts.join('\n\n');
  };
  const out = createWriteStream(path);
  let written = 0;
  let uuid = 0;
  let msg = 0;
  let tool = 0;
  const sessionId = sid ?? '7f3c2a10-0000-4000-8000-00000000b3c4';
  let parent = null;
  const ts = (n) => new Date(Date.UTC(2026, 9, 1) + n * 1000).toISOString();
  const base = () => ({ parentUuid: parent, isSidechain: false, userType: 'external', cwd: '/workspace', sessionId, version: '2.0.76', gitBranch: 'main' });
  const write = async (obj) => {
    const id = `u-${(++uuid).toString(16).padStart(8, '0')}`;
    const line = JSON.stringify({ ...base(), ...obj, uuid: id, timestamp: ts(uuid) }) + '\n';
    parent = id;
    written += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  };
  const assistant = (id, block) => ({
    type: 'assistant',
    requestId: `req_${id}`,
    message: {
      model, id, type: 'message', role: 'assistant', content: [block],
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: 12 + Math.floor(rand() * 400), cache_read_input_tokens: 20000, output_tokens: 40 + Math.floor(rand() * 900) },
    },
  });
  const toolResult = (id, content, isError) => ({
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content, is_error: isError }] },
    toolUseResult: { stdout: content.slice(0, 200), stderr: '', interrupted: false },
  });

  let turn = 0;
  while (written < targetBytes) {
    turn++;
    if (!out.write(JSON.stringify({ type: 'file-history-snapshot', messageId: `snap-${turn}`, snapshot: { trackedFileBackups: {}, timestamp: ts(uuid) }, isSnapshotUpdate: false }) + '\n')) await once(out, 'drain');
    await write({ type: 'user', message: { role: 'user', content: paragraph(1 + Math.floor(rand() * 3)) }, thinkingMetadata: { level: 'high', disabled: false } });
    const rounds = 4 + Math.floor(rand() * 12);
    const loopAt = rand() < 0.15 ? Math.floor(rand() * rounds) : -1;
    const chantAt = rand() < 0.05 ? Math.floor(rand() * rounds) : -1;
    for (let r = 0; r < rounds && written < targetBytes; r++) {
      const repeats = r === loopAt ? 4 : 1;
      for (let k = 0; k < repeats; k++) {
        const id = `msg_${(++msg).toString(36).padStart(10, '0')}`;
        const thinking = text ? prose(4 + Math.floor(rand() * 24)) : paragraph(2 + Math.floor(rand() * 6));
        await write(assistant(id, { type: 'thinking', thinking, signature: 'sig' + 'A'.repeat(200) }));
        if (r === chantAt) {
          const unit = text ? prose(2) : paragraph(2);
          await write(assistant(id, { type: 'text', text: Array(6).fill(unit).join('\n\n') }));
        } else {
          await write(assistant(id, { type: 'text', text: text ? markdown() : paragraph(1 + Math.floor(rand() * 4)) }));
        }
        const calls = 1 + Math.floor(rand() * 3);
        const ids = [];
        for (let c = 0; c < calls; c++) {
          const tid = `toolu_${(++tool).toString(36).padStart(12, '0')}`;
          ids.push(tid);
          const input = repeats > 1
            ? { command: 'npm test -- --run src/parser.test.ts', description: 'Run the failing test' }
            : { command: `grep -rn "${pick(WORDS)}" src/${pick(WORDS)}`, description: sentence(6) };
          await write(assistant(id, { type: 'tool_use', id: tid, name: repeats > 1 ? 'Bash' : pick(['Bash', 'Read', 'Grep', 'Edit']), input }));
        }
        for (const tid of ids) {
          const size = repeats > 1 ? 1 : 1 + Math.floor(rand() * (text ? 50 : 30));
          const content = repeats > 1
            ? 'FAIL src/parser.test.ts\n  ● parses nested arrays\n    Expected: 3\n    Received: 2\n'
            : Array.from({ length: size }, () => sentence(12)).join('\n');
          await write(toolResult(tid, content, repeats > 1));
        }
      }
    }
  }
  out.end();
  await once(out, 'finish');
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, mb] = process.argv.slice(2);
  const bytes = await generate(path, Number(mb ?? 10) * 1024 * 1024);
  console.log(`${path}: ${(bytes / 1048576).toFixed(1)} MB`);
}
