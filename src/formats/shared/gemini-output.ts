// What Gemini CLI wraps around a tool's output before the model reads it, removed so that two
// identical answers look identical. One rule for the reader (formats/gemini.ts) and the live
// guard (hook/payload.ts): if they normalised differently, `analyze` of a session and the hook
// that watched it would disagree on whether its answers repeated.
//
// - The shell tool appends "Process Group PGID: <n>" (and "Background PIDs: …") to every output:
//   a number that differs on each run of the same command. The line is the tool's, not the
//   command's.
// - 0.61 wraps every function response in <untrusted_context>…</untrusted_context> (a marker
//   for the model, not part of the answer).

const TOOL_LINES = /^(?:Process Group PGID|Background PIDs): .*$/gm;
const UNTRUSTED = /^\s*<untrusted_context>\n?([\s\S]*?)\n?<\/untrusted_context>\s*$/;

export function normaliseGeminiOutput(content: string): string;
export function normaliseGeminiOutput(content: unknown): unknown;
export function normaliseGeminiOutput(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  const inner = UNTRUSTED.exec(content);
  return (inner ? inner[1]! : content).replace(TOOL_LINES, '');
}
