// OpenClaw: one SQLite store per agent, `~/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite`
// (Linux and macOS alike); OPENCLAW_STATE_DIR names the state folder that stands for `~/.openclaw`.

import { openclawHook } from './hook.js';
import type { AgentDefinition } from '../types.js';

export const openclaw: AgentDefinition = {
  name: 'openclaw',
  label: 'OpenClaw',
  format: 'openclaw',
  verified: '2026.9.6',
  places: [{ env: { name: 'OPENCLAW_STATE_DIR' }, home: ['.openclaw'], sessions: ['agents', '*', 'agent', 'openclaw-agent.sqlite'], file: true }],
  hook: openclawHook,
};
