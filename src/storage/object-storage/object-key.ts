/**
 * Object keys: relative, slash-separated names such as `org/123/preview.png`. The rule keeps a key safe to
 * map onto a local directory (no absolute paths, no `..`, no hidden files) and onto S3 unchanged.
 */
export const OBJECT_KEY_PATTERN = '^(?!.*(?:^|/)\\.)(?!.*//)[A-Za-z0-9_][A-Za-z0-9._/-]{0,511}(?<!/)$';

/** OBJECT_KEY_PATTERN's characters and length, without its lookarounds (checked below as substrings). */
const KEY_CHARACTERS = /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/;
const MAX_KEY_LENGTH = 512;

/**
 * Whether `key` matches OBJECT_KEY_PATTERN (the schemas' rule; a property test holds the two equal).
 * The listing checks every preview and layer key of a page, 400 for a page of 200 orders: the pattern's
 * lookarounds scan each key three times and cost a page ~70 µs, this ~30 µs. A hidden segment is a
 * `/.` (the first character is never a dot), an empty one a `//` or a trailing slash.
 */
export function isValidObjectKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY_CHARACTERS.test(key) && !key.includes('/.') && !key.includes('//') && !key.endsWith('/');
}

const PLAIN_KEY = /^[A-Za-z0-9._/-]+$/;

/**
 * Encodes a key for a URL path, keeping its slashes. Valid keys need no encoding at all (returned as they
 * are, which the listing's presigner relies on for speed); anything else is encoded segment by segment.
 * The one encoder of both the object URLs (presign.ts) and the upload URLs (upload-signing.ts), so a key
 * is spelled the same in both and `serve`'s `/objects/*` route decodes either.
 */
export function encodeKeyPath(key: string): string {
  return PLAIN_KEY.test(key) ? key : key.split('/').map(encodeURIComponent).join('/');
}

/**
 * Every object of an organization lives under `orgs/<organization id>/`. Seeds and imports refuse keys
 * outside the organization's prefix, and no URL is ever presigned for a key outside the prefix of the
 * order's organization: naming another organization's key gets nothing.
 * @example organizationKeyPrefix('AC3E…') // 'orgs/ac3e…/'
 */
export function organizationKeyPrefix(organizationId: string): string {
  return `orgs/${organizationId.toLowerCase()}/`;
}

/** Whether `key` is a valid key under the organization's prefix. */
export function isKeyOfOrganization(key: string, organizationId: string): boolean {
  return keyOwnershipCheck(organizationId)(key);
}

/** isKeyOfOrganization for one organization, its prefix computed once (the listing asks for every key of a page). */
export function keyOwnershipCheck(organizationId: string): (key: string) => boolean {
  const prefix = organizationKeyPrefix(organizationId);
  return (key) => key.startsWith(prefix) && isValidObjectKey(key);
}
