// `loopledger config`: the effective configuration. A calibration run is only worth as much as
// knowing which thresholds it ran with, so every key is shown with its default and provenance.

import type { LoadedConfig } from '../config/load.js';
import type { ConfigValue } from '../config/spec.js';
import { neutralize, painter, renderTable } from '../config/text.js';

export interface RenderConfigOptions {
  format: 'table' | 'json';
  color: boolean;
}

/** How a value reads on the command line, so it can be pasted back into `--set`. */
export function formatConfigValue(value: ConfigValue): string {
  if (value === null) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.join(',');
  return String(value);
}

/**
 * Long lists (capability patterns) would push every reason off the screen: the table shows the
 * items that fit and how many more there are; `--format json` has them all.
 */
export const MAX_TABLE_VALUE_CHARS = 48;

function cell(value: ConfigValue): string {
  const full = formatConfigValue(value);
  if (full.length <= MAX_TABLE_VALUE_CHARS) return full;
  if (Array.isArray(value)) {
    let shown = '';
    let n = 0;
    for (const item of value) {
      const next = n === 0 ? item : `${shown},${item}`;
      if (next.length > MAX_TABLE_VALUE_CHARS - 12 && n > 0) break;
      shown = next;
      n++;
    }
    if (n < value.length) return `${shown.slice(0, MAX_TABLE_VALUE_CHARS - 12)},… (+${value.length - n})`;
  }
  return `${full.slice(0, MAX_TABLE_VALUE_CHARS - 1)}…`;
}

export function renderConfig(result: LoadedConfig, options: RenderConfigOptions): string {
  const { specs, values, sources } = result;
  // Not `??`: null is a real value (`none`), not a missing one.
  const valueOf = (key: string, fallback: ConfigValue): ConfigValue => (key in values ? (values[key] as ConfigValue) : fallback);
  if (options.format === 'json') {
    const payload = {
      schema: 'loopledger/config/1',
      config: Object.fromEntries(specs.map((s) => [s.key, valueOf(s.key, s.default)])),
      keys: specs.map((s) => ({
        key: s.key,
        type: s.type,
        value: valueOf(s.key, s.default),
        default: s.default,
        source: sources[s.key] ?? 'default',
        ...(s.nullable ? { nullable: true } : {}),
        ...(s.min !== undefined ? { min: s.min } : {}),
        ...(s.max !== undefined ? { max: s.max } : {}),
        ...(s.values !== undefined ? { values: s.values } : {}),
        reason: s.reason,
      })),
      warnings: result.warnings,
    };
    return `${JSON.stringify(payload, null, 2)}\n`;
  }

  if (specs.length === 0) return 'no configuration keys are registered\n';
  const paint = painter(options.color);
  const rows = specs.map((s) => [
    s.key,
    neutralize(cell(valueOf(s.key, s.default))),
    neutralize(cell(s.default)),
    sources[s.key] ?? 'default',
    neutralize(s.reason),
  ]);
  const changed = (r: number) => (sources[specs[r]?.key ?? ''] ?? 'default') !== 'default';
  let out = renderTable(
    [{ header: 'KEY' }, { header: 'VALUE' }, { header: 'DEFAULT' }, { header: 'SOURCE' }, { header: 'REASON' }],
    rows,
    (r, c, text) => {
      if (c === 4) return paint.dim(text);
      if ((c === 1 || c === 3) && changed(r)) return paint.yellow.bold(text);
      return text;
    },
    (h) => paint.bold(h),
  );
  const fromFile = specs.filter((s) => sources[s.key] === 'file').length;
  const fromSet = specs.filter((s) => sources[s.key] === 'set').length;
  out += `\n${specs.length} keys: ${specs.length - fromFile - fromSet} default, ${fromFile} from the config file, ${fromSet} from --set or flags\n`;
  return out;
}
