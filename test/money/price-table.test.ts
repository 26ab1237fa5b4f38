// The pinned price data, frozen. @pydantic/genai-prices is 0.x and its data changes at every
// release: this test fails loudly when the installed package is not the pinned one, or when the
// prices of the models agents use differ from the snapshot below. After a deliberate upgrade,
// review the diff of prices, then update PRICES_VERSION / PRICES_DATA_DATE (src/money/prices.ts),
// the snapshot (`UPDATE_PRICE_SNAPSHOT=1 npx vitest run test/money/price-table.test.ts`) and
// the bundle digest.

import { calcPrice } from '@pydantic/genai-prices';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PRICES_DATA_DATE, PRICES_VERSION } from '../../src/money/prices.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SNAPSHOT = join(dirname(fileURLToPath(import.meta.url)), 'price-table.snapshot.json');
const PACKAGE_DIR = join(ROOT, 'node_modules', '@pydantic', 'genai-prices');

/** Models the supported agents write in their transcripts. */
const MODELS = [
  'claude-opus-4-1-20250805',
  'claude-opus-4-5-20251101',
  'claude-opus-4-6',
  'claude-sonnet-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-sonnet-4-6',
  'claude-haiku-4-5-20251001',
  'claude-3-5-haiku-20241022',
  'gpt-5',
  'gpt-5-codex',
  'gpt-5.1-codex',
  'gpt-5.1-codex-max',
  'gpt-5.5',
  'gpt-4.1',
  'gpt-4o-2024-08-06',
  'gpt-4o-mini',
  'o3',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-3-pro-preview',
  'gemini-3-flash-preview',
  'deepseek-chat',
];

function table(): Record<string, unknown> {
  const at = new Date(`${PRICES_DATA_DATE}T00:00:00Z`);
  const out: Record<string, unknown> = {};
  for (const model of MODELS) {
    const r = calcPrice({ input_tokens: 0 }, model, { timestamp: at });
    expect(r, `${model} has no price in the pinned data`).not.toBeNull();
    out[model] = { provider: r!.provider.id, model: r!.model.id, prices: r!.model.prices };
  }
  return out;
}

function bundleDigest(): string {
  return createHash('sha256').update(readFileSync(join(PACKAGE_DIR, 'dist', 'index.js'))).digest('hex');
}

describe('the pinned price data', () => {
  it('is the version package.json pins exactly, and the one the ledger names', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const installed = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string };
    expect(manifest.dependencies['@pydantic/genai-prices'], 'pinned exactly: no range').toBe(PRICES_VERSION);
    expect(installed.version, 'node_modules holds another version than the pin: run npm ci').toBe(PRICES_VERSION);
    expect(PRICES_DATA_DATE).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('has the prices of the snapshot, model for model, and the same bundle', () => {
    // bundle_sha256: the package's ESM bundle, its code and its compiled-in price data.
    const now = { version: PRICES_VERSION, bundle_sha256: bundleDigest(), models: table() };
    if (process.env['UPDATE_PRICE_SNAPSHOT'] === '1') writeFileSync(SNAPSHOT, JSON.stringify(now, null, 2) + '\n');
    expect(existsSync(SNAPSHOT), `${SNAPSHOT} is missing: it is part of the repository`).toBe(true);
    const frozen = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as typeof now;
    expect(now.models, 'the package\'s prices changed: review, then update the snapshot (see the top of this file)').toEqual(frozen.models);
    expect(now.bundle_sha256, 'the package\'s bundle changed (code or data): review, then update the snapshot').toBe(frozen.bundle_sha256);
    expect(now.version).toBe(frozen.version);
  });

  it('never reaches the network: the bundle has no fetch', () => {
    const bundle = readFileSync(join(PACKAGE_DIR, 'dist', 'index.js'), 'utf8');
    expect(bundle).not.toMatch(/\bfetch\s*\(/);
  });
});
