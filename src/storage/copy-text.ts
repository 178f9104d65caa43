/**
 * PostgreSQL COPY text format (https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.2):
 * columns separated by tabs, rows by newlines, NULL as `\N`, and backslash, tab, newline and carriage
 * return escaped with a backslash. Nothing else needs escaping in UTF-8 text.
 */

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** One value as a COPY text field. */
export function copyField(value: string | null): string {
  if (value === null) return '\\N';
  // Most values (JSON without backslashes, ids) need nothing: test before paying for a replace.
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
}

/**
 * One row as a COPY text line, newline included.
 * @example copyRow(['a\tb', null]) === 'a\\tb\t\\N\n'
 */
export function copyRow(values: ReadonlyArray<string | null>): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : '\t') + copyField(values[i]!);
  return `${line}\n`;
}
