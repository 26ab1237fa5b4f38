// Soak tier (npm run test:soak): times every agent's installed hook over many calls, as `npm run bench:agents` does (~19 CPU-s).
// `npm run bench:agents` times the hook of every agent the guard runs in (issue 55 item 5): each
// agent's command as `hook install <agent> --write` wrote it, started as that agent starts it, fed
// that agent's payloads (bench/installed-hooks.mjs). A guarded agent missing from the bench, or a
// timed call the guard did not take (failed open, answered, or never recorded), fails here.

import { beforeAll, describe, expect, it } from 'vitest';
import { INSTALLED_HOOKS, measureInstalledHook } from '../../bench/installed-hooks.mjs';
import { AGENTS as PINNED } from '../agents/install.mjs';
import { AGENTS } from '../../src/agents/index.js';
import { ensureBuilt } from '../cli/helpers.js';

beforeAll(() => ensureBuilt());

describe('bench/installed-hooks.mjs', () => {
  it('times exactly the agents of the registry that have a live guard', () => {
    expect(Object.keys(INSTALLED_HOOKS).sort()).toEqual(AGENTS.filter((a) => a.hook !== undefined).map((a) => a.name).sort());
  });

  it.each(Object.keys(INSTALLED_HOOKS))('%s: every timed event reached the guard as installed and is in its session ledger', { timeout: 60_000 }, (agent) => {
    const version = PINNED[agent as keyof typeof PINNED]?.version;
    const r = measureInstalledHook(agent, { runs: 2, version });
    // The command install wrote for this agent, not another agent's.
    expect(r.command).toMatch(agent === 'cline' ? /\.cline\/hooks\/PreToolUse$/ : new RegExp(` hook ${agent} --mode telemetry `));
    expect([r.bare.length, r.pre.length, r.post.length]).toEqual([2, 2, 2]);
    for (const t of [...r.bare, ...r.pre, ...r.post]) expect(t).toBeGreaterThan(0);
    // The untimed first call and the two timed ones, each read from that agent's payload shape.
    expect(r.recorded).toBe(3);
  });
});
