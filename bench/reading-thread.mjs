// The reading thread's work alone, on one thread: each file of a store read, parsed and adapted,
// its answers digested as the pipeline's reading thread does (run/reader-thread-worker.ts), the
// events dropped after each file. Its CPU (user and kernel) is steadier than a wall time on a
// shared machine; alternate two builds to compare them (issue 59).
//   node bench/reading-thread.mjs PATH [DIST]   (DIST: another build's dist/, default this one's)
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { jsonlFiles } from './jsonl-files.mjs';

const input = process.argv[2];
const dist = resolve(process.argv[3] ?? fileURLToPath(new URL('../dist', import.meta.url)));
const load = (module) => import(pathToFileURL(join(dist, module)).href);
const { ingestFile } = await load('formats/ingest.js');
const { eventRecorder } = await load('model/events.js');
const { answerFailed } = await load('detect/tool-batch/failure.js');
const { answerDigest } = await load('detect/tool-batch/signature.js');
const { ERROR_HEAD_CHARS, normaliseError } = await load('detect/tool-batch/no-progress.js');

// As the reading thread sends an answer: its digest and what the detectors read of its text.
const digested = (a) => {
  const failed = answerFailed(a);
  const out = { content: '', isError: a.isError, digest: answerDigest(a), failed };
  if (failed) out.normalizedError = normaliseError(a.content);
  if (a.content.length > 0) out.head = a.content.length > ERROR_HEAD_CHARS ? a.content.slice(0, ERROR_HEAD_CHARS) : a.content;
  return out;
};
let events = [];
let rounds = 0;
const sink = eventRecorder(() => events, {
  mapRound: (round) => (round.answers === null ? round : { ...round, answers: round.answers.map(digested) }),
  onRound: () => rounds++,
});
const start = process.hrtime.bigint();
const before = process.cpuUsage();
for (const file of jsonlFiles(input)) {
  events = [];
  await ingestFile(file, sink, { maxHeldChars: 4 * 1024 * 1024, onSkip: (s) => sink.skip(s) });
}
const cpu = process.cpuUsage(before);
const ms = Number(process.hrtime.bigint() - start) / 1e6;
process.stdout.write(JSON.stringify({ ms, userMs: cpu.user / 1000, sysMs: cpu.system / 1000, rounds }) + '\n');
