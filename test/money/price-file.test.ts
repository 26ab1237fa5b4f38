// `--prices FILE`: its accepted shapes, its mistakes reported as usage errors naming the file and
// the model (exit 2), and its prices used by the built binary.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parsePriceDocument, readPriceFile } from '../../src/money/price-file.js';
import { ensureBuilt, runCli, scratch } from '../cli/helpers.js';

const tmp = scratch('loopledger-prices-');
beforeAll(() => ensureBuilt());
afterAll(() => tmp.cleanup());

const model = (extra: Record<string, unknown> = {}) => ({ id: 'house-model-7b', prices: { input_mtok: 0.2, output_mtok: 0.8 }, ...extra });

describe('the prices file shape', () => {
  it('one provider, an array of them, or {"providers": [...]}; name and match have defaults', () => {
    const one = { id: 'house', models: [model()] };
    for (const doc of [one, [one], { providers: [one] }]) {
      const [p] = parsePriceDocument(doc, 'p.json');
      expect(p).toMatchObject({ id: 'house', name: 'house', models: [{ id: 'house-model-7b', match: { equals: 'house-model-7b' } }] });
    }
  });

  it.each([
    [[], /top level/],
    [{ id: 'house' }, /top level/],
    [[{ models: [model()] }], /providers\[0\]: "id"/],
    [[{ id: 'house', models: [] }], /"models" must be a non-empty array/],
    [[{ id: 'house', models: [{ prices: { input_mtok: 1 } }] }], /models\[0\]: "id"/],
    [[{ id: 'house', models: [model({ prices: { input_mtok: 'cheap' } })] }], /house-model-7b\)\.prices\.input_mtok: expected a number/],
    [[{ id: 'house', models: [model({ prices: { input_mtok: -1 } })] }], /at least 0/],
    [[{ id: 'house', models: [model({ match: { like: 'x' } })] }], /unknown match "like"/],
    [[{ id: 'house', models: [model({ match: { regex: '(' } })] }], /bad regex/],
  ])('%j is refused: %s', (doc, message) => {
    expect(() => parsePriceDocument(doc, 'p.json')).toThrow(UsageError);
    expect(() => parsePriceDocument(doc, 'p.json')).toThrow(message);
  });

  it('what the package itself refuses is refused up front (a 1-hour cache rate without the cache write rate it refines)', async () => {
    const file = tmp.write('ancestor.json', JSON.stringify({ id: 'house', models: [model({ prices: { input_mtok: 1, cache_write_1h_mtok: 2 } })] }));
    await expect(readPriceFile(file)).rejects.toThrow(/house model house-model-7b: .*cache_write_mtok/);
  });

  it('an unreadable or non-JSON file is a usage error naming it', async () => {
    await expect(readPriceFile(tmp.dir + '/missing.json')).rejects.toThrow(/--prices .*missing\.json: cannot read it \(ENOENT\)/);
    await expect(readPriceFile(tmp.write('bad.json', '{"id": '))).rejects.toThrow(/--prices .*bad\.json: not JSON/);
  });
});

describe('--prices through the CLI', () => {
  const transcript = () =>
    tmp.write(
      'house.jsonl',
      [
        { type: 'user', sessionId: 'h', uuid: 'u1', message: { role: 'user', content: 'go' } },
        {
          type: 'assistant',
          sessionId: 'h',
          uuid: 'u2',
          timestamp: '2026-09-01T00:00:00Z',
          message: { id: 'm1', model: 'house-model-7b', role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 500_000, output_tokens: 250_000 } },
        },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    );

  it('prices a model the bundled data lacks, and names the file in the pricing block', async () => {
    const prices = tmp.write('prices.json', JSON.stringify([{ id: 'house', models: [model()] }]));
    const r = await runCli([transcript(), '--prices', prices, '--json', '--jobs', '1']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    // 0.5M input at $0.20 and 0.25M output at $0.80 per million.
    expect(j.sessions[0].cost).toEqual({ usd: expect.closeTo(0.5 * 0.2 + 0.25 * 0.8, 9), reason: null });
    expect(j.pricing.overrides).toBe(prices);
  });

  it('without it, the same model has no price: null with its reason, and the table says so', async () => {
    const r = await runCli([transcript(), '--jobs', '1'], { env: { COLUMNS: '200' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('cost unknown: no price for model house-model-7b (1 request)');
    expect(r.stdout).toContain('list price unknown (1 session could not be priced)');
  });

  it('a broken prices file stops the run with exit 2 before any transcript is read', async () => {
    const prices = tmp.write('broken.json', JSON.stringify([{ id: 'house', models: [model({ prices: { input_mtok: 'cheap' } })] }]));
    const r = await runCli([transcript(), '--prices', prices]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^loopledger: --prices .*broken\.json: providers\[0\]\.models\[0\] \(house-model-7b\)\.prices\.input_mtok: expected a number/);
  });
});
