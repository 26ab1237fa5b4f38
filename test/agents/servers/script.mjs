// What a scripted model says next. A script is a function of the conversation so far (as the
// request carries it) returning one model turn: { text?, thinking?, calls?: [{ name, input }] }.
// Every server reduces its API's request to the same view, so one script drives any agent.

/**
 * `modelTurns`: how many model turns the request already holds (runs of assistant items, so a
 * parallel batch is one turn); `results`: every tool result text so far, oldest first;
 * `lastResults`: the results that answered the previous model turn.
 */
export function view(items) {
  let modelTurns = 0;
  let prevModel = false;
  const results = [];
  let lastResults = [];
  for (const it of items) {
    if (it.kind === 'model') {
      if (!prevModel) {
        modelTurns++;
        lastResults = [];
      }
      prevModel = true;
    } else {
      prevModel = false;
      if (it.kind === 'result') {
        results.push(it.text);
        lastResults.push(it.text);
      }
    }
  }
  const userTexts = items.filter((i) => i.kind === 'user').map((i) => i.text);
  return { modelTurns, results, lastResults, userTexts };
}

/** The turns in order, then `last` for every later request (a final answer by default). */
export function sequence(turns, last = { text: 'Done.' }) {
  return (v) => turns[v.modelTurns] ?? last;
}

/** The same turn `times` times, then `last`. */
export function repeat(turn, times, last = { text: 'Done.' }) {
  return (v) => (v.modelTurns < times ? (typeof turn === 'function' ? turn(v) : turn) : last);
}

let nextId = 1;
export function freshId(prefix) {
  return `${prefix}${Date.now().toString(36)}${(nextId++).toString(36)}`;
}

/** Text of anything a request may carry as content: a string, parts, blocks. */
export function textOf(value) {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('\n');
  if (value && typeof value === 'object') {
    if (typeof value.text === 'string') return value.text;
    if ('content' in value) return textOf(value.content);
    if ('output' in value) return textOf(value.output);
    if ('response' in value) return textOf(value.response);
  }
  return '';
}
