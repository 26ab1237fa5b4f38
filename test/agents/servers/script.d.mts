import type { Script, Turn } from '../harness.mjs';
export function sequence(turns: Turn[], last?: Turn): Script;
export function repeat(turn: Turn | Script, times: number, last?: Turn): Script;
