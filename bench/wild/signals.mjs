// Cheap candidate signals for the wild corpus: which sessions to read by hand first. They are
// deliberately blunt (exact repeats only) and decide nothing: a person reads and labels.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HERE } from './lib.mjs';

const library = await import(pathToFileURL(join(HERE, '..', '..', 'dist', 'index.js')).href);

/** The rounds of the file's sessions, numbered as the built library numbers them (first session only). */
export async function roundsOf(file) {
  const rounds = [];
  let first = null;
  const sink = {
    session(info) {
      first ??= info.id;
    },
    turn() {},
    round(id, round) {
      if (id === first) rounds.push(round);
    },
    end() {},
  };
  try {
    await library.ingestFile(file, sink, {});
  } catch {
    // an unreadable file has no rounds; the manifest still lists it
  }
  return rounds;
}

const ERROR_TEXT = /^(error|failed|fatal)\b|exit code:? [1-9]|exited with code [1-9]|not found in file|string to replace not found|failed to find expected lines|permission denied|no such file/i;

export function failed(answer) {
  return answer.isError || ERROR_TEXT.test(answer.content.slice(0, 400));
}

/** An error's text with its incidental parts (numbers, hex ids, quoted paths) blurred. */
function normalisedError(text) {
  return text
    .slice(0, 300)
    .toLowerCase()
    .replace(/[0-9a-f]{8,}/g, '#')
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

const signature = (call) => `${call.name} ${JSON.stringify(call.arguments)}`;

/**
 * Counts of exact repeats: identical call+answer runs, the same error answering consecutive calls, the
 * same call failing the same way again within 12 calls, identical reasoning in consecutive responses,
 * and a call re-sent after a denial. Only the ones at or over their bar are kept in `candidates`.
 */
export function signalsOf(rounds) {
  const calls = [];
  for (const round of rounds)
    round.calls.forEach((call, i) => {
      const answer = round.answers?.[i] ?? null;
      calls.push({ round: round.index, sig: signature(call), name: call.name, answer: answer?.content ?? null, failed: answer ? failed(answer) : false });
    });
  const found = {};
  const keep = (name, value, bar, from, to) => {
    if (value >= bar && value > (found[name]?.count ?? 0)) found[name] = { count: value, rounds: [from, to] };
  };
  let run = 1;
  for (let i = 1; i < calls.length; i++) {
    const same = calls[i].sig === calls[i - 1].sig && calls[i].answer !== null && calls[i].answer === calls[i - 1].answer;
    run = same ? run + 1 : 1;
    keep('identical_run', run, 3, calls[i - run + 1].round, calls[i].round);
  }
  run = 1;
  for (let i = 1; i < calls.length; i++) {
    const a = calls[i - 1];
    const b = calls[i];
    const same = a.failed && b.failed && a.answer !== null && b.answer !== null && normalisedError(a.answer) === normalisedError(b.answer);
    run = same ? run + 1 : 1;
    keep('same_error', run, 3, calls[i - run + 1].round, b.round);
  }
  for (let i = 0; i < calls.length; i++) {
    if (!calls[i].failed || calls[i].answer === null) continue;
    const error = normalisedError(calls[i].answer);
    let count = 1;
    let last = i;
    for (let j = i + 1; j < calls.length && j <= last + 12; j++)
      if (calls[j].sig === calls[i].sig && calls[j].failed && calls[j].answer !== null && normalisedError(calls[j].answer) === error) {
        count++;
        last = j;
      }
    keep('repeated_failure', count, 3, calls[i].round, calls[last].round);
  }
  for (let i = 0; i < calls.length - 1; i++)
    if (calls[i].answer !== null && /denied|rejected|not allowed|declined/i.test(calls[i].answer.slice(0, 300)) && calls[i + 1].name === calls[i].name)
      keep('resent_after_denial', 1, 1, calls[i].round, calls[i + 1].round);
  run = 1;
  const thinking = rounds.map((r) => r.thinking.map((t) => t.text ?? '').join('\n').trim());
  for (let i = 1; i < rounds.length; i++) {
    run = thinking[i].length >= 80 && thinking[i] === thinking[i - 1] ? run + 1 : 1;
    keep('identical_reasoning', run, 2, rounds[i - run + 1].index, rounds[i].index);
  }
  return { rounds: rounds.length, tool_calls: calls.length, candidates: found };
}
