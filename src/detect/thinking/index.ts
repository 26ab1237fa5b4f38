export * from './config.js';
export * from './detector.js';
export * from './round.js';
