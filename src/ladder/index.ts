export * from './clear.js';
export * from './config.js';
export * from './judge.js';
export * from './ladder.js';
export * from './policy.js';
