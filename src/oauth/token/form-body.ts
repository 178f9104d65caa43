/**
 * Strict application/x-www-form-urlencoded decoding for the token endpoint. Fastify's parsers keep only
 * one value per name, so the endpoint parses the raw string itself: RFC 6749 3.1 forbids repeating a
 * parameter, and an empty value counts as an omitted parameter.
 */

/** Every value of every parameter, in order of appearance. */
export type FormParameters = Map<string, string[]>;

export class MalformedFormError extends Error {
  override name = 'MalformedFormError';
}

/** Decodes one form-encoded component: `+` is a space, then percent-decoding (UTF-8). */
export function decodeFormComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new MalformedFormError('malformed percent-encoding');
  }
}

/** Parses a form body into all its values per name. Throws MalformedFormError on bad percent-encoding. */
export function parseForm(body: string): FormParameters {
  const params: FormParameters = new Map();
  if (body === '') return params;
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeFormComponent(pair.slice(eq + 1));
    const values = params.get(name);
    if (values) values.push(value);
    else params.set(name, [value]);
  }
  return params;
}

/** The first name among `names` that appears more than once, or null. */
export function firstRepeated(params: FormParameters, names: readonly string[]): string | null {
  for (const name of names) {
    if ((params.get(name)?.length ?? 0) > 1) return name;
  }
  return null;
}

/** The value of a parameter, or undefined when absent or empty (RFC 6749 3.1: empty means omitted). */
export function single(params: FormParameters, name: string): string | undefined {
  const value = params.get(name)?.[0];
  return value === undefined || value === '' ? undefined : value;
}
