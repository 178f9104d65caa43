/**
 * The one UUID check of certdesk: hyphenated, any letter case. Ids that arrive in paths, flags, files or
 * form fields are checked with it before they reach SQL, so a malformed one never hits a uuid cast.
 * JSON Schemas use `UUID_PATTERN` (or `format: 'uuid'`, which Ajv checks the same way).
 */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const UUID = new RegExp(UUID_PATTERN);

/** Whether `value` is a hyphenated UUID (any letter case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The lower-case form of a hyphenated UUID (as PostgreSQL prints it), or null for anything else. */
export function normalizeUuid(value: string): string | null {
  return isUuid(value) ? value.toLowerCase() : null;
}
