/**
 * multipart/form-data bodies for the fuzzer, from an operation's multipart schema: the fields (values
 * shaped by their schemas, hostile text included) and the file part, then whole, cut at any byte (the
 * request's Content-Length matching what is sent, so the server has all there is), or mis-framed (another
 * boundary, bare LF line endings, no closing delimiter, a part without headers, junk after the end, the
 * file first, two files). Bodies are ASCII-safe text so that they travel as the fuzzer's string payloads.
 *
 * @example
 * fc.sample(multipartBody(document, schema), 3); // [{ contentType: 'multipart/form-data; boundary=…', payload }]
 */
import fc from 'fast-check';
import { resolveRef, type JsonSchema } from './openapi-operations.js';
import { jsonFromSchema } from './schema-arbitraries.js';

export interface FuzzBody {
  contentType: string;
  payload: string;
}

interface Part {
  name: string;
  value: string;
  file?: { filename: string; contentType: string };
}

const FILE_BYTES = fc.constantFrom('\x89PNG\r\n\x1a\n not really a png', 'GIF89a', 'plain text file', '', 'x'.repeat(3000), '--not-a-boundary\r\n');

function encode(parts: Part[], boundary: string, eol: string, closing: boolean): string {
  const out = parts.map((p) => {
    const disposition = `Content-Disposition: form-data; name="${p.name}"${p.file ? `; filename="${p.file.filename}"` : ''}`;
    const type = p.file ? `${eol}Content-Type: ${p.file.contentType}` : '';
    return `--${boundary}${eol}${disposition}${type}${eol}${eol}${p.value}${eol}`;
  });
  return `${out.join('')}${closing ? `--${boundary}--${eol}` : ''}`;
}

/** Text as a form value: what a URL-encoded value would be, but any character (a NUL included) kept. */
const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');

export function multipartBody(document: JsonSchema, schema: JsonSchema): fc.Arbitrary<FuzzBody> {
  const s = resolveRef(document, schema);
  const properties = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>).filter(([name]) => name !== 'file');
  const fields = fc.tuple(...properties.map(([name, sub]) => fc.option(jsonFromSchema(document, sub).map((v) => ({ name, value: asText(v) })), { freq: 3 })));
  const file = fc.record({
    value: FILE_BYTES,
    filename: fc.oneof(fc.constantFrom('art.png', 'a b.psd', '', '..\\..\\x.png', 'a\u0000.png', 'é.png'), fc.string({ maxLength: 12 }).map((t) => t.replace(/["\r\n]/g, ''))),
    contentType: fc.constantFrom('image/png', 'application/octet-stream', 'text/plain', ''),
  });
  const boundary = fc.constantFrom('fuzzBoundary', 'x', '----WebKitFormBoundary7MA4YWxkTrZu0gW', 'a'.repeat(70));
  return fc
    .record({ fields, file, boundary, fileFirst: fc.boolean(), framing: fc.nat(99), cut: fc.nat() })
    .map(({ fields: fs, file: f, boundary: b, fileFirst, framing, cut }) => {
      const given = fs.filter((x): x is { name: string; value: string } => x !== null);
      const filePart: Part = { name: 'file', value: f.value, file: { filename: f.filename, contentType: f.contentType } };
      const parts = fileFirst ? [filePart, ...given] : [...given, filePart];
      const contentType = `multipart/form-data; boundary=${b}`;
      const whole = encode(parts, b, '\r\n', true);
      // 30%: whole; 45%: cut at any byte; 25%: mis-framed.
      if (framing < 30) return { contentType, payload: whole };
      if (framing < 75) return { contentType, payload: whole.slice(0, cut % (whole.length + 1)) };
      switch (framing % 8) {
        case 0:
          return { contentType: 'multipart/form-data; boundary=someOtherBoundary', payload: whole };
        case 1:
          return { contentType, payload: encode(parts, b, '\n', true) };
        case 2:
          return { contentType, payload: encode(parts, b, '\r\n', false) };
        case 3:
          return { contentType, payload: `--${b}\r\n\r\nno headers\r\n${whole}` };
        case 4:
          return { contentType, payload: `${whole}trailing junk --${b}\r\n` };
        case 5:
          return { contentType: 'multipart/form-data', payload: whole };
        case 6:
          return { contentType, payload: encode([...parts, { ...filePart, value: f.value.slice(0, 3) }], b, '\r\n', cut % 2 === 0) };
        default:
          return { contentType, payload: whole.replace(/\r\n\r\n/, '\r\n') };
      }
    });
}
