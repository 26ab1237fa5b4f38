// Tool-name patterns (`observation_tools`, `costly_tools`, `transparent_tools`). SPEC: a pattern
// matches a tool name case-insensitively when equal to it or ending with it after a separator
// (`_`, `-`, `.`, `:`, `/`), `*` a wildcard: `browser_click` is a `click`, `clickhouse_query` is not.

/** What may precede a pattern inside a namespaced tool name (`mcp__browser__click`, `fs.read`, `ns/tool`). */
const SEPARATORS = '_-.:/';

/** SEPARATORS as the inside of a regular-expression character class. */
const SEPARATOR_CLASS = '_\\-.:/';

export type ToolMatcher = (name: string) => boolean;

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.|?+()[\]{}]/g, '\\$&');
}

/** One pattern. Empty patterns never match: an empty string would make every tool read-only. */
function compileOne(pattern: string): ToolMatcher | null {
  const p = pattern.trim().toLowerCase();
  if (p.length === 0) return null;
  if (p.includes('*')) {
    if (/^\*+$/.test(p)) return () => true;
    // The whole name, or the part after any separator: a suffix that starts a name segment.
    const body = p.split('*').map(escapeRegExp).join('.*');
    const re = new RegExp(`^(?:.*[${SEPARATOR_CLASS}])?${body}$`, 's');
    return (name) => re.test(name.toLowerCase());
  }
  return (name) => {
    const n = name.toLowerCase();
    if (n.length === p.length) return n === p;
    return n.length > p.length && n.endsWith(p) && SEPARATORS.includes(n[n.length - p.length - 1]!);
  };
}

/** A matcher for a pattern list: true when any pattern matches the name. */
export function compileToolPatterns(patterns: readonly string[]): ToolMatcher {
  const matchers = patterns.map(compileOne).filter((m): m is ToolMatcher => m !== null);
  if (matchers.length === 0) return () => false;
  if (matchers.length === 1) return matchers[0]!;
  return (name) => {
    for (const m of matchers) if (m(name)) return true;
    return false;
  };
}

/**
 * Compiles a pattern list once per list object: configurations hand the detector the same array
 * every round, so the cost is one compile per turn, not one per call.
 */
export class PatternCache {
  private patterns: readonly string[] | null = null;
  private matcher: ToolMatcher = () => false;

  get(patterns: readonly string[]): ToolMatcher {
    if (patterns !== this.patterns) {
      this.patterns = patterns;
      this.matcher = compileToolPatterns(patterns);
    }
    return this.matcher;
  }
}
