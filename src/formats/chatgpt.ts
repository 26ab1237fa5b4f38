import type { FormatAdapter } from './types.js';

// Placeholder until the adapter lands: recognizes nothing.
export const chatgptAdapter: FormatAdapter = {
  name: 'chatgpt',
  description: '',
  detection: '',
  detect: () => 0,
  open: () => ({ push: () => {}, end: () => {} }),
};
