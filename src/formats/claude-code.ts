import type { FormatAdapter } from './types.js';

// Placeholder until the adapter lands: recognizes nothing.
export const claudeCodeAdapter: FormatAdapter = {
  name: 'claude-code',
  description: '',
  detection: '',
  detect: () => 0,
  open: () => ({ push: () => {}, end: () => {} }),
};
