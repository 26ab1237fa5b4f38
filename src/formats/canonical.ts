import type { FormatAdapter } from './types.js';

// Placeholder until the adapter lands: recognizes nothing.
export const canonicalAdapter: FormatAdapter = {
  name: 'canonical',
  description: '',
  detection: '',
  detect: () => 0,
  open: () => ({ push: () => {}, end: () => {} }),
};
