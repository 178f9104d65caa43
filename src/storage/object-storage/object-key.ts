/**
 * Object keys: relative, slash-separated names such as `org/123/preview.png`. The rule keeps a key safe to
 * map onto a local directory (no absolute paths, no `..`, no hidden files) and onto S3 unchanged.
 */
export const OBJECT_KEY_PATTERN = '^(?!.*(?:^|/)\\.)(?!.*//)[A-Za-z0-9_][A-Za-z0-9._/-]{0,511}(?<!/)$';
const objectKeyRegex = new RegExp(OBJECT_KEY_PATTERN);

export function isValidObjectKey(key: string): boolean {
  return objectKeyRegex.test(key);
}
