export * from './clear.js';
export * from './config.js';
export * from './judge.js';
export * from './judge-prompt.js';
export * from './ladder.js';
export * from './model-identity.js';
export * from './policy.js';
export * from './verdicts.js';
