// `config_hash`: one short value that tells whether two ledgers were made under the same
// configuration, so that shard ledgers (and anything summed downstream) are never mixed across
// configurations. Keys are sorted first: the hash depends on the values, not on their order.

import { createHash } from 'node:crypto';

/** The first 16 hex digits (64 bits) of the SHA-256 of the configuration as sorted, compact JSON. */
export function configHash(config: Readonly<Record<string, unknown>>): string {
  const sorted = Object.keys(config)
    .sort()
    .map((k) => [k, config[k] === undefined ? null : config[k]]);
  return createHash('sha256').update(JSON.stringify(sorted), 'utf8').digest('hex').slice(0, 16);
}
