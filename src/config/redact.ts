// URLs as they may be shown: a user name, password or query value can be a credential (an API key
// in `?key=…`, `https://user:token@host`), and a ledger, a config listing or an error message is
// read by people who should not see it. Everything that prints or records a URL goes through here.

/** A URL inside any text: a scheme, `://`, then everything up to a blank or a quote. */
const URL_IN_TEXT = /\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'<>`]+/g;

const HIDDEN = '***';

/** One `k=v&k2` list with every value hidden (a bare item may itself be the key, so it goes too). */
function hideValues(params: string): string {
  if (params === '') return params;
  return params
    .split('&')
    .map((p) => {
      const eq = p.indexOf('=');
      if (eq >= 0) return `${p.slice(0, eq + 1)}${eq + 1 < p.length ? HIDDEN : ''}`;
      return p === '' ? p : HIDDEN;
    })
    .join('&');
}

function redactOne(url: string): string {
  const scheme = url.indexOf('://') + 3;
  // The authority ends at the first '/', '?' or '#'; userinfo is up to its last '@'.
  const rest = url.slice(scheme);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  let tail = authorityEnd < 0 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const host = at < 0 ? authority : `${HIDDEN}@${authority.slice(at + 1)}`;
  const hash = tail.indexOf('#');
  const fragment = hash < 0 ? '' : tail.slice(hash + 1);
  if (hash >= 0) tail = tail.slice(0, hash);
  const q = tail.indexOf('?');
  const path = q < 0 ? tail : tail.slice(0, q);
  const query = q < 0 ? null : tail.slice(q + 1);
  return (
    url.slice(0, scheme) +
    host +
    path +
    (query === null ? '' : `?${hideValues(query)}`) +
    (hash < 0 ? '' : `#${fragment.includes('=') ? hideValues(fragment) : fragment}`)
  );
}

/**
 * `text` with every URL in it redacted: userinfo becomes `***@`, each query value `***` (the
 * names stay, so `?api-version=***` still says what was set). Text without a URL is unchanged.
 */
export function redactUrls(text: string): string {
  return text.includes('://') ? text.replace(URL_IN_TEXT, redactOne) : text;
}

/** A configuration's values with every string (and list item) that holds a URL redacted. */
export function redactConfigValues<T extends Readonly<Record<string, unknown>>>(values: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(values)) {
    out[key] = typeof v === 'string' ? redactUrls(v) : Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? redactUrls(x) : x)) : v;
  }
  return out as T;
}
