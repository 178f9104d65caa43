/**
 * A list as one PostgreSQL array literal (`{"a","b"}`), to pass as a single parameter with a cast
 * (`= ANY($1::uuid[])`). Unlike an IN list, the statement's text is the same for any number of values,
 * so it is prepared once (monitored-pg-pool.ts); and PGlite and node-postgres read the same text.
 * Every element is quoted, with `"` and `\` escaped, so no value can split into two.
 */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}
