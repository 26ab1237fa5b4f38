// The README is the front door and the reference lives in docs/ (issue 26): every page there is
// linked from the README, and every relative link and #anchor in README.md and docs/*.md lands on
// a file that exists and a heading it has, as GitHub names headings.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/helpers.js';

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Markdown outside fenced code blocks, where links and headings are read. */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .filter((l) => {
      if (/^\s*(```|~~~)/.test(l)) {
        fenced = !fenced;
        return false;
      }
      return !fenced;
    })
    .join('\n')
    .replace(/`[^`\n]*`/g, (code) => code.replace(/[[\]()]/g, ' '));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), spaces to `-`; repeats get `-1`, `-2`. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

interface Link {
  page: string;
  target: string;
}

function links(page: string): Link[] {
  const text = prose(readFileSync(join(ROOT, page), 'utf8'));
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => ({ page, target: m[1]! }));
}

const all = pages.flatMap(links);
const relativeLinks = all.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target));

describe('the README and docs/ link up', () => {
  it('reads links from every page (the README links to docs/)', () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(relativeLinks.filter((l) => l.page === 'README.md').length).toBeGreaterThan(10);
    expect(relativeLinks.filter((l) => l.target.includes('#')).length).toBeGreaterThan(0);
  });

  it('every relative link names a file or folder that exists', () => {
    const broken = relativeLinks
      .filter((l) => !l.target.startsWith('#'))
      .filter((l) => !existsSync(join(ROOT, dirname(l.page), decodeURIComponent(l.target.split('#')[0]!))))
      .map((l) => `${l.page} → ${l.target}`);
    expect(broken).toEqual([]);
  });

  it('every #anchor names a heading of its page', () => {
    const broken = relativeLinks
      .filter((l) => l.target.includes('#'))
      .filter((l) => {
        const [path, anchor] = l.target.split('#') as [string, string];
        const file = path === '' ? join(ROOT, l.page) : join(ROOT, dirname(l.page), path);
        return !file.endsWith('.md') || !existsSync(file) || !anchors(file).has(decodeURIComponent(anchor));
      })
      .map((l) => `${l.page} → ${l.target}`);
    expect(broken).toEqual([]);
  });

  it('every page in docs/ is linked from the README', () => {
    const fromReadme = new Set(relativeLinks.filter((l) => l.page === 'README.md').map((l) => normalize(l.target.split('#')[0]!)));
    const unlinked = pages.filter((p) => p !== 'README.md' && !fromReadme.has(normalize(relative(ROOT, join(ROOT, p)))));
    expect(unlinked).toEqual([]);
  });

  it('the anchors are GitHub\'s', () => {
    const probe = join(ROOT, 'docs', 'cli.md');
    const names = anchors(probe);
    // "## Past one machine: `--shard` and `merge`" and "## A page to look at: `--format html`"
    expect(names).toContain('past-one-machine---shard-and-merge');
    expect(names).toContain('a-page-to-look-at---format-html');
  });

  it('the README stays a front door: at most ~250 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });
});
