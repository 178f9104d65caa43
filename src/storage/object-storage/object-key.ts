/**
 * Object keys: relative, slash-separated names such as `org/123/preview.png`. The rule keeps a key safe to
 * map onto a local directory (no absolute paths, no `..`, no hidden files) and onto S3 unchanged.
 */
export const OBJECT_KEY_PATTERN = '^(?!.*(?:^|/)\\.)(?!.*//)[A-Za-z0-9_][A-Za-z0-9._/-]{0,511}(?<!/)$';
const objectKeyRegex = new RegExp(OBJECT_KEY_PATTERN);

export function isValidObjectKey(key: string): boolean {
  return objectKeyRegex.test(key);
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
  return key.startsWith(organizationKeyPrefix(organizationId)) && isValidObjectKey(key);
}
