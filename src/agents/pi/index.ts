// pi (@mariozechner/pi-coding-agent): `~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl` on Linux
// and macOS alike. PI_CODING_AGENT_DIR moves the agent folder (`<dir>/sessions/…`); a session folder
// named by `--session-dir`, PI_CODING_AGENT_SESSION_DIR or settings' `sessionDir` holds the files
// flat and is given by path.

import { piHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const pi: AgentDefinition = {
  name: 'pi',
  label: 'pi',
  format: 'pi',
  verified: '0.73.1',
  places: [{ env: { name: 'PI_CODING_AGENT_DIR' }, home: ['.pi', 'agent'], sessions: ['sessions'] }],
  hook: piHook,
};
