// "Is this a plain JSON object" (not null, not an array), asked of parsed input all over the tree:
// one definition, so every reader draws the line in the same place.

export type Rec = Record<string, unknown>;

export function isRecord(value: unknown): value is Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
