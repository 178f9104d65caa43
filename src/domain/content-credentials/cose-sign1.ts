/**
 * The manifest's signature: a COSE_Sign1 (RFC 9052) as C2PA 2.x wants it. ES256 (`alg` -7) and the chain
 * (`x5chain`, label 33: one byte string for a single certificate, else an array) in the protected header;
 * the claim is the detached payload; no `sigTst` (no time-stamping authority: the transparency log is the
 * evidence of time). The box reserved for the signature in the manifest has a fixed size, so the
 * unprotected header carries a zero `pad` that brings the structure to exactly that size, as c2pa-rs does.
 *
 * Built here, in the job's thread, from the claim the C2PA library hands over: the decoder thread that
 * reads the uploaded file never holds the key, and the key never signs anything but a COSE Sig_structure
 * with this protected header.
 */
import { encode } from 'cborg';

const COSE_SIGN1_TAG = 0xd2; // CBOR tag 18, one byte
const ALG_ES256 = -7;
const HEADER_ALG = 1;
const HEADER_X5CHAIN = 33;

/** Bytes to reserve for the signature box: the chain, the 64-byte signature, headers, and room for a pad. */
export function coseReserveSize(chainDer: readonly Uint8Array[]): number {
  return chainDer.reduce((sum, der) => sum + der.length + 8, 0) + 1024;
}

export function coseProtectedHeader(chainDer: readonly Uint8Array[]): Uint8Array {
  return encode(new Map<number, unknown>([[HEADER_ALG, ALG_ES256], [HEADER_X5CHAIN, chainDer.length === 1 ? chainDer[0] : [...chainDer]]]));
}

/** The Sig_structure of a COSE_Sign1 with a detached payload and no external data: what is signed. */
export function coseToBeSigned(protectedHeader: Uint8Array, claim: Uint8Array): Uint8Array {
  return encode(['Signature1', protectedHeader, new Uint8Array(0), claim]);
}

function tagged(protectedHeader: Uint8Array, padBytes: number, signature: Uint8Array): Uint8Array {
  const body = encode([protectedHeader, new Map([['pad', new Uint8Array(padBytes)]]), null, signature]);
  const out = new Uint8Array(body.length + 1);
  out[0] = COSE_SIGN1_TAG;
  out.set(body, 1);
  return out;
}

/**
 * The tagged COSE_Sign1 of `claim`, padded to exactly `size` bytes.
 * @param sign ES256 over the bytes, IEEE P1363 (r || s)
 */
export function coseSign1(claim: Uint8Array, chainDer: readonly Uint8Array[], sign: (toBeSigned: Uint8Array) => Uint8Array, size: number): Uint8Array {
  const protectedHeader = coseProtectedHeader(chainDer);
  const signature = sign(coseToBeSigned(protectedHeader, claim));
  // The pad's own length header grows at 24 and 256 bytes: a few rounds settle it (the reserve keeps it above 256).
  let pad = 0;
  for (let round = 0; round < 4; round++) {
    const out = tagged(protectedHeader, pad, signature);
    if (out.length === size) return out;
    pad += size - out.length;
    if (pad < 0) break;
  }
  throw new Error(`the COSE signature does not fit the ${size} bytes reserved for it`);
}
