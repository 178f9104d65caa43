/**
 * Reads a file's Content Credentials in the browser with the C2PA reference implementation (c2pa-rs
 * compiled to WebAssembly, `@contentauth/c2pa-wasm`), served by certdesk itself: the WebAssembly is
 * fetched on first use only (when a file is dropped), never with the page. The trust anchors are
 * certdesk's own (`/.well-known/c2pa-trust-anchors.pem`), so "trusted" means signed by certdesk.
 * What the manifest store means is decided by the client package's pure module, shared with
 * `certdesk-client verify`.
 */
import initC2pa, { WasmReader } from '@contentauth/c2pa-wasm';
import { readContentCredentials, type ContentCredentialsReading } from '../../../../clients/typescript/src/content-credentials.js';

export type { ContentCredentialsReading };
export { assertionDisagreement } from '../../../../clients/typescript/src/content-credentials.js';

let library: Promise<typeof WasmReader> | null = null;
let anchors: Promise<string> | null = null;

/** The reader, its WebAssembly instantiated once (a failed load is tried again on the next file). */
function reader(wasmUrl: string): Promise<typeof WasmReader> {
  library ??= initC2pa({ module_or_path: wasmUrl }).then(
    () => WasmReader,
    (error: unknown) => {
      library = null;
      throw error;
    },
  );
  return library;
}

/** certdesk's C2PA trust anchors (PEM); none when the service publishes none (then nothing reads as signed by certdesk). */
function trustAnchors(url: string): Promise<string> {
  anchors ??= fetch(url, { cache: 'no-cache', credentials: 'omit' }).then(
    (response) => (response.ok ? response.text() : ''),
    () => {
      anchors = null;
      return '';
    },
  );
  return anchors;
}

/** What the file's Content Credentials say, read in this tab (nothing is uploaded). Throws when they cannot be read. */
export async function readFileCredentials(file: Blob, urls: { wasm: string; trustAnchors: string }): Promise<ContentCredentialsReading> {
  const [Reader, pem, bytes] = await Promise.all([reader(urls.wasm), trustAnchors(urls.trustAnchors), file.arrayBuffer()]);
  return readContentCredentials(Reader, new Uint8Array(bytes), pem, file.type || null);
}
