import type { FormatAdapter } from './types.js';

// Placeholder until the adapter lands: recognizes nothing.
export const openaiAdapter: FormatAdapter = {
  name: 'openai',
  description: '',
  detection: '',
  detect: () => 0,
  open: () => ({ push: () => {}, end: () => {} }),
};
