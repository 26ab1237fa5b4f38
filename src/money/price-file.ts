// `--prices FILE`: prices the bundled data lacks (a model it does not know, a gateway's rates, a
// negotiated discount), in @pydantic/genai-prices' own Provider shape, checked once up front so a
// mistake is a usage error naming the file and the model, never a wrong figure later.

import type { MatchLogic, Provider } from '@pydantic/genai-prices';
import { UsageError } from '../errors.js';
import { loadGenai, type PriceOverrides } from './prices.js';
import { readSideFile, SideFileTooLarge } from '../side-file.js';
import { isRecord as isRec } from '../is-record.js';

/** A prices file is a few hundred KB (genai-prices' own data is ~1 MB): past this, a wrong path. */
const MAX_PRICES_BYTES = 32 * 1024 * 1024;

type Rec = Record<string, unknown>;

const MATCH_STRINGS = ['equals', 'starts_with', 'ends_with', 'contains', 'regex'] as const;

/** Read, check and normalize a prices file. Any problem is a UsageError (exit 2). */
export async function readPriceFile(path: string): Promise<PriceOverrides> {
  let text: string;
  try {
    text = await readSideFile(path, MAX_PRICES_BYTES);
  } catch (e) {
    if (e instanceof SideFileTooLarge) throw new UsageError(`--prices ${path}: ${e.message}`);
    throw new UsageError(`--prices ${path}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new UsageError(`--prices ${path}: not JSON (${(e as Error).message})`);
  }
  const providers = parsePriceDocument(doc, path);
  await checkWithPackage(providers, path);
  return { path, providers };
}

/**
 * The accepted shapes: one provider, an array of providers, or `{"providers": [...]}`. A provider
 * needs `id` and `models`; `name` defaults to the id. A model needs `id` and `prices`; `match`
 * defaults to `{"equals": <id>}`.
 */
export function parsePriceDocument(doc: unknown, path: string): Provider[] {
  const fail = (where: string, what: string): never => {
    throw new UsageError(`--prices ${path}: ${where}: ${what}`);
  };
  const list = Array.isArray(doc) ? doc : isRec(doc) && Array.isArray(doc.providers) ? doc.providers : isRec(doc) && 'models' in doc ? [doc] : null;
  if (list === null || list.length === 0) {
    fail('top level', 'expected a provider {"id", "models": [...]}, an array of them, or {"providers": [...]}');
  }
  return list!.map((p, i): Provider => {
    const where = `providers[${i}]`;
    if (!isRec(p)) return fail(where, 'expected an object');
    if (typeof p.id !== 'string' || p.id === '') fail(where, '"id" must be a non-empty string');
    if (!Array.isArray(p.models) || p.models.length === 0) fail(`${where} (${p.id as string})`, '"models" must be a non-empty array');
    const models = (p.models as unknown[]).map((m, j) => {
      const at = `${where}.models[${j}]`;
      if (!isRec(m)) return fail(at, 'expected an object');
      if (typeof m.id !== 'string' || m.id === '') fail(at, '"id" must be a non-empty string');
      const named = `${at} (${m.id as string})`;
      const match = m.match === undefined ? { equals: m.id as string } : m.match;
      checkMatch(match, `${named}.match`, fail);
      checkPrices(m.prices, `${named}.prices`, fail);
      return { ...m, id: m.id as string, match: match as MatchLogic, prices: m.prices as Provider['models'][number]['prices'] };
    });
    return {
      ...p,
      id: p.id as string,
      name: typeof p.name === 'string' ? p.name : (p.id as string),
      // Only consulted when a request names its API URL, which a transcript never does.
      api_pattern: typeof p.api_pattern === 'string' ? p.api_pattern : '(?!)',
      models,
    };
  });
}

function checkMatch(m: unknown, where: string, fail: (w: string, what: string) => never): void {
  if (!isRec(m)) fail(where, 'expected an object such as {"equals": "model-name"}');
  const keys = Object.keys(m as Rec);
  if (keys.length !== 1) fail(where, `expected exactly one of ${[...MATCH_STRINGS, 'or', 'and'].join(', ')}`);
  const key = keys[0]!;
  const value = (m as Rec)[key];
  if (key === 'or' || key === 'and') {
    if (!Array.isArray(value) || value.length === 0) fail(where, `"${key}" must be a non-empty array`);
    (value as unknown[]).forEach((x, i) => checkMatch(x, `${where}.${key}[${i}]`, fail));
    return;
  }
  if (!(MATCH_STRINGS as readonly string[]).includes(key)) fail(where, `unknown match "${key}"`);
  if (typeof value !== 'string') fail(where, `"${key}" must be a string`);
  if (key === 'regex') {
    try {
      new RegExp(value as string);
    } catch (e) {
      fail(where, `bad regex: ${(e as Error).message}`);
    }
  }
}

function checkPrices(prices: unknown, where: string, fail: (w: string, what: string) => never): void {
  if (Array.isArray(prices)) {
    if (prices.length === 0) fail(where, 'an empty list of prices');
    prices.forEach((p, i) => {
      if (!isRec(p)) fail(`${where}[${i}]`, 'expected {"prices": {...}} with an optional "constraint"');
      checkPriceSet((p as Rec).prices, `${where}[${i}].prices`, fail);
    });
    return;
  }
  checkPriceSet(prices, where, fail);
}

function checkPriceSet(prices: unknown, where: string, fail: (w: string, what: string) => never): void {
  if (!isRec(prices) || Object.keys(prices).length === 0) fail(where, 'expected an object of rates such as {"input_mtok": 3, "output_mtok": 15}');
  for (const [key, v] of Object.entries(prices as Rec)) {
    if (typeof v === 'number') {
      if (!(Number.isFinite(v) && v >= 0)) fail(`${where}.${key}`, 'a rate must be a finite number of at least 0');
      continue;
    }
    const tiered = isRec(v) && typeof v.base === 'number' && Array.isArray(v.tiers);
    if (!tiered) fail(`${where}.${key}`, 'expected a number (dollars per unit of the key) or {"base": n, "tiers": [{"start": tokens, "price": n}]}');
    for (const t of (v as Rec).tiers as unknown[]) {
      if (!isRec(t) || typeof t.start !== 'number' || typeof t.price !== 'number') fail(`${where}.${key}.tiers`, 'each tier is {"start": tokens, "price": n}');
    }
  }
}

/**
 * Price a probe request of every part with each model, so what the package itself would refuse
 * (an unknown price key, a cache rate without the rate it refines) is reported now.
 */
async function checkWithPackage(providers: Provider[], path: string): Promise<void> {
  const gp = await loadGenai();
  const probe = { input_tokens: 1000, cache_read_tokens: 100, cache_write_tokens: 100, cache_write_1h_tokens: 50, output_tokens: 10 };
  for (const provider of providers) {
    for (const model of provider.models) {
      const name = 'loopledger-price-check';
      try {
        gp.calcPrice(probe, name, { provider: { ...provider, models: [{ ...model, match: { equals: name } }] } });
      } catch (e) {
        throw new UsageError(`--prices ${path}: ${provider.id} model ${model.id}: ${(e as Error).message}`);
      }
    }
  }
}
