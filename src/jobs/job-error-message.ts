/** What a failed attempt records as its error (jobs.last_error): the error's name and message, bounded. */
export function jobErrorMessage(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 2000);
}
