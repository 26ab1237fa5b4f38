import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadConfig, parseConfigValue, suggestKey } from '../../src/config/load.js';
import { CONFIG_KEYS } from '../../src/config/registry.js';
import type { ConfigKeySpec } from '../../src/config/spec.js';
import { ConfigError, EXIT_USAGE } from '../../src/errors.js';

// Specs built here, so the tests hold whatever the modules register meanwhile.
const SPECS: readonly ConfigKeySpec[] = [
  { key: 'mode', type: 'enum', values: ['off', 'telemetry', 'enforce'], default: 'telemetry', fallback: 'telemetry', reason: 'seed 002: report-only first' },
  { key: 'scope', type: 'enum', values: ['turn', 'replay'], default: 'turn', reason: 'per turn' },
  { key: 'tool_batch.max_strikes', type: 'integer', default: 2, min: 0, max: 100, reason: 'seed 000' },
  { key: 'tool_batch.max_observation_steps', type: 'integer', default: 15, nullable: true, min: 0, reason: 'seed 000' },
  { key: 'tool_batch.observation_tools', type: 'list', default: ['snapshot', 'screenshot'], reason: 'seed 000' },
  { key: 'output.similarity', type: 'ratio', default: 0.85, reason: 'seed 002' },
  { key: 'output.window_chars', type: 'number', default: 4096, min: 64, max: 1_000_000, reason: 'window' },
  { key: 'judge.enabled', type: 'boolean', default: true, reason: 'judge' },
  { key: 'policy.profile', type: 'string', default: 'default', reason: 'profile' },
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loopledger-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

async function configError(p: Promise<unknown>): Promise<ConfigError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).exitCode).toBe(EXIT_USAGE);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig precedence', () => {
  it('fills every key with its default when nothing is given', async () => {
    const r = await loadConfig({ specs: SPECS });
    expect(Object.keys(r.values)).toEqual(SPECS.map((s) => s.key));
    for (const s of SPECS) {
      expect(r.values[s.key]).toEqual(s.default);
      expect(r.sources[s.key]).toBe('default');
    }
    expect(r.warnings).toEqual([]);
    expect(r.specs).toBe(SPECS);
  });

  it('default < file < --set, with provenance for each key', async () => {
    const path = await file('prec.json', { tool_batch: { max_strikes: 3, max_observation_steps: 20 }, 'output.similarity': 0.9 });
    const r = await loadConfig({ specs: SPECS, file: path, sets: ['tool_batch.max_strikes=4'] });
    expect(r.values['tool_batch.max_strikes']).toBe(4);
    expect(r.sources['tool_batch.max_strikes']).toBe('set');
    expect(r.values['tool_batch.max_observation_steps']).toBe(20);
    expect(r.sources['tool_batch.max_observation_steps']).toBe('file');
    expect(r.values['output.similarity']).toBe(0.9);
    expect(r.sources['output.similarity']).toBe('file');
    expect(r.values['scope']).toBe('turn');
    expect(r.sources['scope']).toBe('default');
  });

  it('a later --set wins over an earlier one; dedicated flags (overrides) win over --set', async () => {
    const r = await loadConfig({
      specs: SPECS,
      sets: ['tool_batch.max_strikes=4', 'tool_batch.max_strikes=5', 'scope=turn'],
      overrides: { scope: 'replay', 'policy.profile': 'conversation' },
    });
    expect(r.values['tool_batch.max_strikes']).toBe(5);
    expect(r.values['scope']).toBe('replay');
    expect(r.sources['scope']).toBe('set');
    expect(r.values['policy.profile']).toBe('conversation');
    expect(r.sources['policy.profile']).toBe('set');
  });

  it('uses the registry when no specs are passed', async () => {
    const r = await loadConfig();
    expect(r.specs).toBe(CONFIG_KEYS);
    for (const s of CONFIG_KEYS) expect(r.values[s.key]).toEqual(s.default);
  });
});

describe('config file forms', () => {
  const expected = { 'tool_batch.max_strikes': 3, 'tool_batch.observation_tools': ['a', 'b'], mode: 'enforce' };

  it.each([
    ['flat dotted keys', { 'tool_batch.max_strikes': 3, 'tool_batch.observation_tools': ['a', 'b'], mode: 'enforce' }],
    ['nested sections', { tool_batch: { max_strikes: 3, observation_tools: ['a', 'b'] }, mode: 'enforce' }],
    ['a loop_detection wrapper', { loop_detection: { mode: 'enforce', tool_batch: { max_strikes: 3, observation_tools: ['a', 'b'] } } }],
    ['the seed ai.loop_detection wrapper', { ai: { loop_detection: { mode: 'enforce', 'tool_batch.max_strikes': 3, tool_batch: { observation_tools: ['a', 'b'] } } } }],
    ['mixed flat and nested', { 'loop_detection.mode': 'enforce', tool_batch: { 'max_strikes': 3 }, 'tool_batch.observation_tools': 'a, b' }],
  ])('%s', async (name, content) => {
    const path = await file(`${name.replaceAll(' ', '_')}.json`, content);
    const r = await loadConfig({ specs: SPECS, file: path });
    for (const [k, v] of Object.entries(expected)) {
      expect(r.values[k]).toEqual(v);
      expect(r.sources[k]).toBe('file');
    }
  });

  it('accepts a BOM, $schema, strings parsed like --set, null for a nullable key, and seed-cased enum values', async () => {
    const path = await file('misc.json', `\ufeff${JSON.stringify({
      $schema: 'https://example.invalid/schema.json',
      mode: 'Enforce',
      tool_batch: { max_strikes: '3', max_observation_steps: null },
      judge: { enabled: 'no' },
    })}`);
    const r = await loadConfig({ specs: SPECS, file: path });
    expect(r.values['mode']).toBe('enforce');
    expect(r.values['tool_batch.max_strikes']).toBe(3);
    expect(r.values['tool_batch.max_observation_steps']).toBeNull();
    expect(r.values['judge.enabled']).toBe(false);
  });

  it('warns when a file gives one key twice', async () => {
    const path = await file('twice.json', { 'tool_batch.max_strikes': 3, tool_batch: { max_strikes: 4 } });
    const r = await loadConfig({ specs: SPECS, file: path });
    expect(r.values['tool_batch.max_strikes']).toBe(4);
    expect(r.warnings.join('\n')).toMatch(/tool_batch\.max_strikes is given more than once/);
  });

  it('an unknown key in the file is an error naming the key and the file, with a suggestion', async () => {
    const path = await file('unknown.json', { tool_batch: { max_strike: 3 } });
    const e = await configError(loadConfig({ specs: SPECS, file: path }));
    expect(e.message).toContain('tool_batch.max_strike');
    expect(e.message).toContain(path);
    expect(e.message).toContain('did you mean tool_batch.max_strikes');
  });

  it('a section where a value belongs, or a value where a section belongs, is an error', async () => {
    const a = await file('obj-for-int.json', { tool_batch: { max_strikes: { n: 3 } } });
    expect((await configError(loadConfig({ specs: SPECS, file: a }))).message).toContain('tool_batch.max_strikes');
    const b = await file('int-for-section.json', { tool_batch: 3 });
    expect((await configError(loadConfig({ specs: SPECS, file: b }))).message).toContain('"tool_batch"');
  });

  it('an unreadable file, a non-JSON file and a non-object file are errors naming the file', async () => {
    const missing = join(dir, 'nope.json');
    expect((await configError(loadConfig({ specs: SPECS, file: missing }))).message).toContain(missing);
    const bad = await file('bad.json', '{ "mode": ');
    expect((await configError(loadConfig({ specs: SPECS, file: bad }))).message).toMatch(/bad\.json is not valid JSON/);
    const arr = await file('array.json', '[1, 2]');
    expect((await configError(loadConfig({ specs: SPECS, file: arr }))).message).toContain('array.json');
  });

  it('wrong JSON types are errors', async () => {
    for (const [i, content] of [
      { tool_batch: { max_strikes: 2.5 } },
      { tool_batch: { max_strikes: true } },
      { tool_batch: { observation_tools: [1, 2] } },
      { judge: { enabled: 1 } },
      { policy: { profile: 7 } },
      { scope: 'sideways' },
      { tool_batch: { max_strikes: null } },
    ].entries()) {
      const path = await file(`wrong-${i}.json`, content);
      await configError(loadConfig({ specs: SPECS, file: path }));
    }
  });
});

describe('--set parsing', () => {
  const set = async (...sets: string[]) => loadConfig({ specs: SPECS, sets });

  it('parses by type', async () => {
    const r = await set(
      'tool_batch.max_strikes=3',
      'output.similarity=0.9',
      'output.window_chars=1e3',
      'judge.enabled=no',
      'policy.profile=conversation=odd',
      'mode=ENFORCE',
    );
    expect(r.values['tool_batch.max_strikes']).toBe(3);
    expect(r.values['output.similarity']).toBe(0.9);
    expect(r.values['output.window_chars']).toBe(1000);
    expect(r.values['judge.enabled']).toBe(false);
    expect(r.values['policy.profile']).toBe('conversation=odd');
    expect(r.values['mode']).toBe('enforce');
  });

  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ['yes', true],
    ['No', false],
  ])('boolean %s', async (text, expected) => {
    expect((await set(`judge.enabled=${text}`)).values['judge.enabled']).toBe(expected);
  });

  it.each([
    ['snapshot,web_search', ['snapshot', 'web_search']],
    [' snapshot , web_search ,', ['snapshot', 'web_search']],
    ['["a","b"]', ['a', 'b']],
    ['[]', []],
    ['', []],
    ['single', ['single']],
  ])('list %j', async (text, expected) => {
    expect((await set(`tool_batch.observation_tools=${text}`)).values['tool_batch.observation_tools']).toEqual(expected);
  });

  it('none and null for a nullable key; an error for a key that is not nullable', async () => {
    expect((await set('tool_batch.max_observation_steps=none')).values['tool_batch.max_observation_steps']).toBeNull();
    expect((await set('tool_batch.max_observation_steps=NULL')).values['tool_batch.max_observation_steps']).toBeNull();
    const e = await configError(set('tool_batch.max_strikes=none'));
    expect(e.message).toContain('tool_batch.max_strikes');
  });

  it('an unknown key is an error that names it and suggests the nearest key', async () => {
    const e = await configError(set('tool_batch.max_strikess=3'));
    expect(e.message).toContain('"tool_batch.max_strikess"');
    expect(e.message).toContain('did you mean tool_batch.max_strikes?');
    const bare = await configError(set('max_strikes=3'));
    expect(bare.message).toContain('did you mean tool_batch.max_strikes?');
    const far = await configError(set('completely.different=3'));
    expect(far.message).toContain('"completely.different"');
    expect(far.message).not.toContain('did you mean');
  });

  it('accepts the loop_detection prefix on --set keys', async () => {
    expect((await set('loop_detection.tool_batch.max_strikes=7')).values['tool_batch.max_strikes']).toBe(7);
  });

  it('a malformed --set is an error', async () => {
    expect((await configError(set('tool_batch.max_strikes'))).message).toMatch(/KEY=VALUE/);
    expect((await configError(set('=3'))).message).toMatch(/key/);
  });

  it.each([
    'tool_batch.max_strikes=three',
    'tool_batch.max_strikes=2.5',
    'tool_batch.max_strikes=',
    'tool_batch.max_strikes=0x10',
    'output.similarity=high',
    'output.similarity=NaN',
    'output.window_chars=Infinity',
    'judge.enabled=maybe',
    'tool_batch.observation_tools=[1,2]',
    'tool_batch.observation_tools=["a"',
    'scope=sideways',
  ])('bad value %s is a ConfigError naming the key', async (item) => {
    const e = await configError(set(item));
    expect(e.message).toContain(item.slice(0, item.indexOf('=')));
  });

  it('a bad value from a dedicated flag names the flag', async () => {
    const e = await configError(loadConfig({ specs: SPECS, overrides: { scope: 'sideways' } }));
    expect(e.message).toContain('--scope');
  });
});

describe('sanitizing', () => {
  // SPEC (Bad input): "A configuration value outside its documented range (a negative count, a
  // ratio above 1) is a usage error naming the key and the range (exit 2), not a silent clamp."
  it.each([
    ['tool_batch.max_strikes=-1', 'tool_batch.max_strikes takes a whole number from 0 to 100'],
    ['output.window_chars=5', 'output.window_chars takes a number from 64 to 1000000'],
    ['output.similarity=1.5', 'output.similarity takes a ratio from 0 to 1'],
    ['tool_batch.max_observation_steps=-3', 'tool_batch.max_observation_steps takes a whole number of at least 0 (or none)'],
  ])('refuses the out-of-range %s, naming key and range (exit 2)', async (item, range) => {
    const e = await configError(loadConfig({ specs: SPECS, sets: [item] }));
    expect(e.message).toContain(`--set ${item.replace(/=.*/, '')}=`);
    expect(e.message).toContain('out of range');
    expect(e.message).toContain(range);
  });

  it('refuses an out-of-range file value too, naming the file, key and range', async () => {
    const path = await file('clamp.json', { tool_batch: { max_strikes: 1000 } });
    const e = await configError(loadConfig({ specs: SPECS, file: path }));
    expect(e.message).toContain(path);
    expect(e.message).toMatch(/tool_batch\.max_strikes=1000 is out of range: .*from 0 to 100/);
  });

  it('an unknown enum value degrades to the fallback with a warning', async () => {
    const r = await loadConfig({ specs: SPECS, sets: ['mode=aggressive'] });
    expect(r.values['mode']).toBe('telemetry');
    expect(r.sources['mode']).toBe('set');
    expect(r.warnings[0]).toMatch(/mode="aggressive" is not one of off, telemetry, enforce; using telemetry/);
    const path = await file('newer-mode.json', { loop_detection: { mode: 'Autopilot' } });
    const f = await loadConfig({ specs: SPECS, file: path });
    expect(f.values['mode']).toBe('telemetry');
    expect(f.warnings).toHaveLength(1);
  });

  it('property: every in-range integer round-trips, every out-of-range one is refused', () => {
    const spec = SPECS.find((s) => s.key === 'tool_batch.max_strikes') as ConfigKeySpec;
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (n) => {
        const warnings: string[] = [];
        if (n < 0 || n > 100) {
          expect(() => parseConfigValue(spec, String(n), undefined, warnings)).toThrow(ConfigError);
        } else {
          expect(parseConfigValue(spec, String(n), undefined, warnings)).toBe(n);
        }
        expect(warnings).toEqual([]);
      }),
    );
  });
});

describe('suggestKey', () => {
  const keys = SPECS.map((s) => s.key);
  it('finds typos, bare last segments and case slips', () => {
    expect(suggestKey('tool_batch.max_strike', keys)).toBe('tool_batch.max_strikes');
    expect(suggestKey('max_observation_steps', keys)).toBe('tool_batch.max_observation_steps');
    expect(suggestKey('Output.Similarity', keys)).toBe('output.similarity');
    expect(suggestKey('zzz', keys)).toBeNull();
  });
});

describe('file forms are equivalent', () => {
  it('property: flat, nested and wrapped files with the same settings load the same values', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(['tool_batch.max_strikes', 'output.window_chars', 'judge.enabled', 'tool_batch.observation_tools', 'mode']),
        fc.integer({ min: 64, max: 100 }), // in range for both numeric keys (out of range is an error),
        fc.boolean(),
        fc.array(fc.stringMatching(/^[a-z_]{1,8}$/), { maxLength: 4 }),
        async (keys, n, b, list) => {
          const pick = (k: string): unknown =>
            k === 'judge.enabled' ? b : k === 'tool_batch.observation_tools' ? list : k === 'mode' ? 'Off' : n;
          const flat: Record<string, unknown> = {};
          const nested: Record<string, Record<string, unknown> | unknown> = {};
          for (const k of keys) {
            flat[k] = pick(k);
            const [head, tail] = k.includes('.') ? [k.slice(0, k.indexOf('.')), k.slice(k.indexOf('.') + 1)] : [k, null];
            if (tail === null) nested[head] = pick(k);
            else nested[head] = { ...(nested[head] as Record<string, unknown> | undefined), [tail]: pick(k) };
          }
          const results = [];
          for (const [i, content] of [flat, nested, { loop_detection: nested }, { ai: { loop_detection: flat } }].entries()) {
            results.push(await loadConfig({ specs: SPECS, file: await file(`eq-${i}.json`, content) }));
          }
          for (const r of results.slice(1)) {
            expect(r.values).toEqual(results[0]?.values);
            expect(r.sources).toEqual(results[0]?.sources);
            expect(r.warnings.length).toBe(results[0]?.warnings.length);
          }
          for (const k of keys) expect(results[0]?.sources[k]).toBe('file');
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('the detectors\' sanitizing pass runs with the loader', () => {
  it('a strong band set below the ambiguous band is repaired by the detector and announced (issue 4: clamps misconfiguration with a warning)', async () => {
    const { loadConfig } = await import('../../src/config/load.js');
    const loaded = await loadConfig({ sets: ['output.near_repetition_strong=0.8'] });
    expect(loaded.warnings.some((w) => w.includes('output.near_repetition_strong') && w.includes('raised'))).toBe(true);
  });
});
