// OpenClaw: each agent's sessions in its SQLite store (formats/openclaw-db.ts hands them over one
// record per session, `{openclawSession, events}`). OpenClaw runs pi's agent core and keeps pi's
// session entries (a `session` header, then a tree of `message` entries), read as pi's are.

import { PiSession } from './pi.js';
import { isRec } from './shared/text.js';
import type { AdapterContext, FormatAdapter, RecordParser } from './types.js';

export const openclawAdapter: FormatAdapter = {
  name: 'openclaw',
  description: "OpenClaw agents' sessions (~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite, table transcript_events): pi's session entries, the branch taken read",
  detection: 'its SQLite store, by its tables (transcript_events, session_nodes); no file of its own',
  // Only its database names it (formats/ingest/database.ts): a JSONL file of the same entries is pi's.
  detect: () => 0,
  open: (ctx) => new OpenclawParser(ctx),
};

class OpenclawParser implements RecordParser {
  constructor(private readonly ctx: AdapterContext) {}

  push(value: unknown, line: number | null): void {
    if (!isRec(value) || !Array.isArray(value.events)) {
      this.ctx.skip(line, 'not an OpenClaw session ({openclawSession, events})');
      return;
    }
    const session = new PiSession();
    for (const event of value.events) if (!session.add(event, line)) this.ctx.skip(line, 'not a pi entry ({type, id, parentId})');
    session.read(this.ctx);
  }

  end(): void {}
}
