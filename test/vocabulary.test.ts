// Issue 12: each small vocabulary has one home (src/vocabulary.ts); everything else imports it.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS } from '../src/config/registry.js';
import { ENFORCE_LEVELS, LEVEL_RANK, MODES, REPORT_FORMATS, strongerLevel } from '../src/vocabulary.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('vocabulary', () => {
  it('the level scale is none < noted < steer < stop', () => {
    expect(ENFORCE_LEVELS).toEqual(['none', 'noted', 'steer', 'stop']);
    expect(ENFORCE_LEVELS.map((l) => LEVEL_RANK[l])).toEqual([0, 1, 2, 3]);
    expect(strongerLevel('steer', 'noted')).toBe('steer');
    expect(strongerLevel('noted', 'stop')).toBe('stop');
    expect(MODES).toEqual(['off', 'telemetry', 'enforce']);
    expect(REPORT_FORMATS).toEqual(['table', 'json', 'ndjson', 'markdown', 'junit', 'sarif', 'github', 'html', 'otlp']);
  });

  it('the configuration keys take their values from it', () => {
    const spec = (key: string) => CONFIG_KEYS.find((s) => s.key === key);
    expect(spec('mode')?.values).toBe(MODES);
    expect(spec('tool_batch.cycle_enforce')?.values).toBe(ENFORCE_LEVELS);
  });

  it('no other source file spells a vocabulary out again', () => {
    const again = [
      /'none',\s*'noted',\s*'steer',\s*'stop'/,
      /'stop',\s*'steer',\s*'noted'/,
      /none:\s*0,\s*noted:\s*1/,
      /'none'\s*\|\s*'noted'\s*\|\s*'steer'/,
      /'off',\s*'telemetry',\s*'enforce'/,
      /'off'\s*\|\s*'telemetry'/,
      /'telemetry'\s*\|\s*'enforce'/,
      /'table',\s*'json',\s*'ndjson'/,
      /'table'\s*\|\s*'json'/,
    ];
    const offenders: string[] = [];
    for (const file of sources('src')) {
      if (file === join('src', 'vocabulary.ts')) continue;
      const text = readFileSync(file, 'utf8');
      for (const re of again) if (re.test(text)) offenders.push(`${file}: ${re}`);
    }
    expect(offenders).toEqual([]);
  });
});
