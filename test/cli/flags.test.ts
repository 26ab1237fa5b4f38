import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from './helpers.js';

beforeAll(() => ensureBuilt());

describe('dedicated flags take only known values (issue 6: an unknown value is a usage error, exit 2)', () => {
  it('--profile bogus is exit 2 naming the allowed profiles; a known profile runs', async () => {
    const bad = await runCli(['fixtures/openai', '--profile', 'bogus', '--jobs', '1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/conversation/);
    expect(bad.stdout).toBe('');
    const good = await runCli(['fixtures/openai', '--profile', 'conversation', '--model-capability', 'weak', '--json', '--jobs', '1']);
    expect(good.code).toBe(0);
    const report = JSON.parse(good.stdout) as { config: Record<string, unknown> };
    expect(report.config['policy.profile']).toBe('conversation');
    expect(report.config['policy.model_capability']).toBe('weak');
  });
});
