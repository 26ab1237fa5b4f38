import type { FormatAdapter } from './types.js';

// Placeholder until the adapter lands: recognizes nothing.
export const geminiAdapter: FormatAdapter = {
  name: 'gemini',
  description: '',
  detection: '',
  detect: () => 0,
  open: () => ({ push: () => {}, end: () => {} }),
};
