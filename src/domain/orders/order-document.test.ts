import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { normalizeTimestamp } from './order-document.js';

const MICROS_PER_SECOND = 1_000_000n;
const MICROS_PER_MINUTE = 60n * MICROS_PER_SECOND;

/** `YYYY-MM-DDTHH:MM:SS` of whole epoch seconds, in UTC. */
const wallClock = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString().slice(0, 19);

/** Epoch microseconds written as RFC 3339 with six fractional digits, at an offset of `offsetMinutes`. */
function rfc3339(micros: bigint, offsetMinutes: number): string {
  const local = micros + BigInt(offsetMinutes) * MICROS_PER_MINUTE;
  const sub = ((local % MICROS_PER_SECOND) + MICROS_PER_SECOND) % MICROS_PER_SECOND;
  const abs = Math.abs(offsetMinutes);
  const zone = offsetMinutes === 0 ? 'Z' : `${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${wallClock((local - sub) / MICROS_PER_SECOND)}.${sub.toString().padStart(6, '0')}${zone}`;
}

/** Epoch microseconds back from a normalized timestamp. */
function microsOf(normalized: string): bigint {
  const m = /^(.{19})\.(\d{3}|\d{6})Z$/.exec(normalized);
  assert.ok(m, `normalized form: ${normalized}`);
  return (BigInt(Date.parse(`${m[1]}Z`)) / 1000n) * MICROS_PER_SECOND + BigInt(m[2]!.padEnd(6, '0'));
}

// Years 1000 to 9998: four-digit years on both sides of any offset.
const instant = fc.bigInt({ min: BigInt(Date.UTC(1000, 0, 2)) * 1000n, max: BigInt(Date.UTC(9998, 11, 30)) * 1000n });
const offset = fc.integer({ min: -14 * 60, max: 14 * 60 });

describe('normalizeTimestamp', () => {
  it('keeps every microsecond, whatever the offset, and writes UTC', () => {
    fc.assert(
      fc.property(instant, offset, (micros, offsetMinutes) => {
        const normalized = normalizeTimestamp(rfc3339(micros, offsetMinutes));
        assert.ok(normalized !== null);
        assert.equal(microsOf(normalized), micros);
        assert.equal(normalized, rfc3339(micros, 0).replace(/(\.\d{3})000Z$/, '$1Z'), 'UTC, six digits unless the last three are zero');
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves millisecond timestamps as Date#toISOString writes them', () => {
    fc.assert(
      fc.property(instant, (micros) => {
        const iso = new Date(Number(micros / 1000n)).toISOString();
        assert.equal(normalizeTimestamp(iso), iso);
      }),
    );
  });

  it('rounds digits below the microsecond, carrying into the seconds', () => {
    assert.equal(normalizeTimestamp('2026-01-01T03:41:17.1234564Z'), '2026-01-01T03:41:17.123456Z');
    assert.equal(normalizeTimestamp('2026-01-01T03:41:17.1234565Z'), '2026-01-01T03:41:17.123457Z');
    assert.equal(normalizeTimestamp('2026-12-31T23:59:59.9999996Z'), '2027-01-01T00:00:00.000Z');
    assert.equal(normalizeTimestamp('2026-01-01t03:41:17z'), '2026-01-01T03:41:17.000Z');
    assert.equal(normalizeTimestamp('2026-01-01 03:41:17.5-01:30'), '2026-01-01T05:11:17.500Z');
  });

  it('takes the shortcut for UTC text only when the long way gives the same text', () => {
    // UTC text around the edges of the calendar and the clock, with 0 to 7 fraction digits: the shortcut
    // answers only a real instant in that exact form; the same instant written as +00:00 takes the long way.
    const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
    const text = fc
      .tuple(digits(4, 9999), digits(2, 13), digits(2, 32), digits(2, 24), digits(2, 60), digits(2, 60), fc.oneof(fc.constant(''), fc.integer({ min: 1, max: 7 }).chain((n) => digits(n, 10 ** n - 1).map((f) => `.${f}`))))
      .map(([y, mo, d, h, mi, s, f]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${f}Z`);
    fc.assert(
      fc.property(text, (value) => {
        const normalized = normalizeTimestamp(value);
        const viaOffset = normalizeTimestamp(value.replace(/Z$/, '+00:00'));
        assert.equal(normalized, viaOffset, `${value}: the shortcut and the long way agree`);
      }),
      { numRuns: 5000 },
    );
    assert.equal(normalizeTimestamp('2024-02-29T23:59:59.999999Z'), '2024-02-29T23:59:59.999999Z');
    assert.equal(normalizeTimestamp('2026-01-01T00:00:00.123000Z'), '2026-01-01T00:00:00.123Z');
    assert.equal(normalizeTimestamp('2026-01-01T24:00:00.000Z'), '2026-01-02T00:00:00.000Z', 'ISO 8601 end of day: the next midnight');
    for (const bad of ['2025-02-29T00:00:00.000Z', '2026-06-30T23:59:60.000Z', '2026-00-10T00:00:00.000Z']) {
      assert.equal(normalizeTimestamp(bad), null, bad);
    }
  });

  it('refuses what is not a real instant', () => {
    for (const bad of ['2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T25:00:00Z', '2026-01-01', 'yesterday', '2026-01-01T00:00:00.1234567890Z']) {
      assert.equal(normalizeTimestamp(bad), null, bad);
    }
  });
});
