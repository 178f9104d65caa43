/** UUIDs as identifiers arrive in paths: checked in code so that a malformed one never reaches SQL. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The lower-case form of a hyphenated UUID (as PostgreSQL prints it), or null for anything else. */
export function normalizeUuid(value: string): string | null {
  return UUID.test(value) ? value.toLowerCase() : null;
}
