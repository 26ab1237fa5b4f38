import type { FormatAdapter } from './types.js';

// Placeholder until the adapter lands: recognizes nothing.
export const anthropicAdapter: FormatAdapter = {
  name: 'anthropic',
  description: '',
  detection: '',
  detect: () => 0,
  open: () => ({ push: () => {}, end: () => {} }),
};
