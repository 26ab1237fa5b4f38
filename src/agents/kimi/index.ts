// Kimi CLI (MoonshotAI/kimi-cli): `~/.kimi/sessions/<md5 of the work dir>/…` on Linux and macOS
// alike; KIMI_SHARE_DIR moves the `.kimi` folder (kimi_cli/share.py, 0.42 and 1.49). 0.42 keeps a
// session as `<session>.jsonl` (its ReadContext sub-agents as `<session>_read_<n>.jsonl`); 1.49 as
// `<session>/context.jsonl` beside `wire.jsonl` (the UI's event log), `state.json` and a sub-agent's
// `meta.json` (0.x's `metadata.json`): none of those is a transcript.

import type { AgentDefinition } from '../types.js';

const COMPANIONS = new Set(['wire.jsonl', 'state.json', 'meta.json', 'metadata.json']);

export const kimi: AgentDefinition = {
  name: 'kimi',
  label: 'Kimi CLI',
  format: 'kimi',
  verified: '0.42',
  places: [{ env: { name: 'KIMI_SHARE_DIR' }, home: ['.kimi'], sessions: ['sessions'] }],
  childSessions: 'parent',
  isCompanion: (_dir, name) => COMPANIONS.has(name),
};
