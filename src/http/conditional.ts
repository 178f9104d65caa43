/** Conditional GETs (RFC 9110 13.1.2): does an If-None-Match header name this entity tag? */
export function matchesIfNoneMatch(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  const opaque = etag.replace(/^W\//, '');
  return value.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === opaque;
  });
}
