// Self-arbitration avoidance (seed 002): the judge "skips any candidate that is the monitored
// turn's own model, including a second configuration entry for the same provider model". Offline
// there are no configuration entries, only names; the same provider model reaches us under other
// names (a router prefix, a dated snapshot, a cloud's spelling), so names are compared by the
// provider model they denote.

/** Region and vendor prefixes of cloud model ids: `us.anthropic.claude-…`, `meta.llama3-…`. */
const CLOUD_PREFIX = /^(?:(?:us|eu|apac|ap|global|us-gov)\.)?(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|openai|qwen|writer)\./;
/** Bedrock's version suffix: `-v1:0` (a bare `-v3` is part of a name: `deepseek-v3`). */
const CLOUD_VERSION = /-v\d+:\d+$/;
/** Vertex's snapshot suffix: `claude-3-5-sonnet-v2@20241022`. */
const AT_SNAPSHOT = /@[^@]*$/;
/** Tags naming the same weights: Ollama's `:latest`, routers' `:free` / `:beta`. */
const SAME_WEIGHTS_TAG = /:(?:latest|free|beta)$/;
/** Snapshot dates: `-2024-08-06`, `-20250929`; and the moving `-latest` alias. */
const DATED = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * The provider model a name denotes: lowercased; router and provider prefixes (`openai/`,
 * `models/`), cloud prefixes and version suffixes, snapshot dates and same-weight tags removed;
 * `4.5` and `4-5` spelled alike. `gpt-4o` and `gpt-4o-mini` stay apart.
 */
export function providerModelId(name: string): string {
  let id = name.trim().toLowerCase();
  // Suffixes nest (`…-20240620-v1:0`, `…-v2@20241022`): strip until nothing changes.
  for (let i = 0; i < 8; i++) {
    const before = id;
    id = id.slice(id.lastIndexOf('/') + 1);
    // Vertex spells a snapshot `-v2@20241022`; there the `-v2` belongs to the snapshot too.
    if (AT_SNAPSHOT.test(id)) id = id.replace(AT_SNAPSHOT, '').replace(/-v\d+$/, '');
    id = id.replace(SAME_WEIGHTS_TAG, '').replace(CLOUD_PREFIX, '').replace(CLOUD_VERSION, '').replace(DATED, '');
    id = id.replace(/(\d)\.(?=\d)/g, '$1-').trim();
    if (id === before) break;
  }
  return id;
}

/** Whether the judge would be arbitrating its own output (unknown models are never the same). */
export function sameProviderModel(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const x = providerModelId(a);
  return x !== '' && x === providerModelId(b);
}
