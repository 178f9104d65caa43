/** A refused operator request (bad input, unknown or conflicting record): its message is the whole story. */
export class ProvisioningError extends Error {
  override name = 'ProvisioningError';
}
