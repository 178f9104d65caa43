/**
 * Query-string values that are credentials never reach a log line: presigned `signature`s, page tokens,
 * a `client_secret` someone sent in a URL, any `*secret*`, `*token*`, `code`. The path and the other
 * parameters stay, so a log line still says what was asked for.
 */

const SENSITIVE_NAME = /secret|token|^signature$|^code$|^password$|^api[_-]?key$/i;

export const REDACTED = '[redacted]';

function isSensitive(rawName: string): boolean {
  let name = rawName;
  try {
    name = decodeURIComponent(rawName.replace(/\+/g, ' '));
  } catch {
    // A malformed escape: judge the raw text.
  }
  return SENSITIVE_NAME.test(name.trim());
}

/**
 * The URL with the values of sensitive query parameters replaced; everything else byte for byte.
 * @example redactUrl('/objects/a.png?expires=1&signature=abc') // '/objects/a.png?expires=1&signature=[redacted]'
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash === -1 ? undefined : hash);
  const redacted = query
    .split(/([&;])/)
    .map((part) => {
      if (part === '&' || part === ';') return part;
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      return eq !== -1 && isSensitive(name) ? `${name}=${REDACTED}` : part;
    })
    .join('');
  return `${url.slice(0, q + 1)}${redacted}${hash === -1 ? '' : url.slice(hash)}`;
}
