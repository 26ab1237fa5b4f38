import type { FormatAdapter } from './types.js';

// Placeholder until the adapter lands: recognizes nothing.
export const codexAdapter: FormatAdapter = {
  name: 'codex',
  description: '',
  detection: '',
  detect: () => 0,
  open: () => ({ push: () => {}, end: () => {} }),
};
