// Types for test/agents/otel-run.mjs.
import type { AgentName, AgentRun, Scratch } from './harness.mjs';

export const REPEATS: number;
export function runWithTelemetry(
  agent: AgentName,
  options?: { dir?: Scratch; timeout?: number },
): Promise<{ run: AgentRun; otlp: string; received: string[]; outfile: string }>;
