// Paths as CI tools want them: relative to the workspace, forward slashes.

import path from 'node:path';

export function relativePath(p: string, cwd: string | undefined): string {
  let out = p;
  if (path.isAbsolute(p)) {
    const rel = path.relative(cwd ?? process.cwd(), p);
    // Outside the workspace a relative path would only mislead: keep it absolute.
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) out = rel;
  }
  return out.split(path.sep).join('/');
}
