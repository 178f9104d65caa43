/**
 * Object keys of intake, all under the organization's own prefix, so one organization's objects never
 * share a key space with another's (and a bucket policy or a cleanup can work per organization).
 */
export function uploadObjectKey(organizationId: string, uploadId: string): string {
  return `orgs/${organizationId.toLowerCase()}/uploads/${uploadId}`;
}
