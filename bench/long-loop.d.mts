// Types for bench/long-loop.mjs, so that tests written in TypeScript can generate a long loop.

export function generateLongLoop(
  path: string,
  options?: { rounds?: number; seed?: number; turns?: number; varied?: number; canonical?: boolean },
): Promise<{ rounds: number; loopRounds: number; turns: number; bytes: number; sessionId: string }>;
