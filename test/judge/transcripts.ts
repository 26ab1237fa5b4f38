// Seeded transcripts for the judge tests: an agent applying one review template to several files,
// which the thinking detector sees as adjacent reasoning blocks in the ambiguous 0.85-0.90 band
// (modelled on fixtures/calibration/claude-code/clean-review-template.jsonl).

const FILES: [string, string][] = [
  ['orders', 'creates an order from the cart and reserves the stock for it'],
  ['refunds', 'reverses a captured payment and writes the ledger correction'],
  ['invoices', 'renders the monthly invoice PDF and emails it to the payer'],
  ['shipments', 'books a courier slot and prints the label for the parcel'],
  ['customers', 'merges duplicate customer records found by the nightly job'],
];

const SENTENCES = [
  'I need to check it for unchecked nulls, swallowed errors and missing input validation.',
  'Every await on the request path should have its rejection handled or deliberately propagated.',
  'Catch blocks that log and continue hide failures from the caller, so I will list each one.',
  'The request body schema must match what the handler reads before it writes to the store.',
  'Anything that changes a status code or a response field changes the API contract and goes in its own section.',
  'Retries without idempotency keys can double-charge, which matters for anything touching payments.',
  'Finally I will note missing tests for the error paths, since those are what regress first.',
];

export interface ReviewOptions {
  id: string;
  model?: string;
  /** Where the files live: varies the evidence from one session to the next. */
  dir?: string;
  /** User turns, each reviewing every file. */
  turns?: number;
  /** ~720-character reasoning blocks instead of ~170 (for the excerpt-bound test). */
  long?: boolean;
}

/** The thinking text of one review step. */
function reviewThinking(file: string, what: string, o: ReviewOptions): string {
  const dir = o.dir ?? 'src/api';
  if (o.long) return `Next is ${dir}/${file}.ts, which ${what.split(' ').slice(0, 4).join(' ')}. ${SENTENCES.join(' ')}`;
  return `Next is ${dir}/${file}.ts. I need to check it for unchecked nulls, swallowed errors and missing input validation, and note anything that would change the API contract.`;
}

/** A canonical JSONL transcript, and every text in it (for the excerpt-bound test). */
export function reviewTranscript(o: ReviewOptions): { jsonl: string; texts: string[] } {
  const texts: string[] = [];
  const line = (x: unknown) => JSON.stringify(x);
  const out = [line({ type: 'session', schema: 'loopledger-canonical/1', id: o.id, parent: null, model: o.model ?? 'claude-sonnet-4-5-20250929' })];
  let call = 0;
  for (let t = 0; t < (o.turns ?? 1); t++) {
    const ask = `review the handlers in ${o.dir ?? 'src/api'} for error handling problems (pass ${t + 1})`;
    texts.push(ask);
    out.push(line({ type: 'user', text: ask }));
    for (const [file, what] of FILES) {
      const thinking = reviewThinking(file, what, o);
      const result = `export async function ${file}(req) {\n  return db.${file}.get(req.params.id);\n}`;
      texts.push(thinking, result);
      const id = `c${++call}`;
      out.push(line({ type: 'assistant', text: '', thinking: [{ text: thinking }], tool_calls: [{ id, name: 'read_file', arguments: { path: `${o.dir ?? 'src/api'}/${file}.ts` } }] }));
      out.push(line({ type: 'tool_result', id, content: result }));
    }
    const summary = 'Found three problems: a swallowed error in refunds, an unchecked null in orders and a missing schema check in invoices.';
    texts.push(summary);
    out.push(line({ type: 'assistant', text: summary }));
  }
  return { jsonl: `${out.join('\n')}\n`, texts };
}
