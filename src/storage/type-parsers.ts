/**
 * One set of result parsers for both drivers, so PGlite and node-postgres hand the code identical values.
 * - int8 (counts) → number: every count here is far below 2^53.
 * - json → the raw text: stored order documents are spliced into responses without a parse/serialize round trip.
 * - jsonb → parsed value. timestamptz stays each driver's default (a Date); exact microseconds, where
 *   they matter (page tokens), are selected as integers.
 */
export const PG_TYPE = {
  int8: 20,
  json: 114,
  jsonb: 3802,
  numeric: 1700,
} as const;

export const resultParsers: Record<number, (value: string) => unknown> = {
  [PG_TYPE.int8]: (v) => Number(v),
  [PG_TYPE.numeric]: (v) => Number(v),
  [PG_TYPE.json]: (v) => v,
  [PG_TYPE.jsonb]: (v) => JSON.parse(v),
};
