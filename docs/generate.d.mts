// Types for docs/generate.mjs (the reference pages generated from the registries).

export function kindsPage(): string;
export function configKeysPage(): string;
