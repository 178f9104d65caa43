/**
 * The image libraries of the analysis (sharp with libvips, ag-psd), loaded on first use: together
 * ~35 MB of resident memory that a process which never analyzes an asset (`serve` answering the API while
 * `certdesk worker` analyzes, every other CLI command) never pays. Each loads once per process.
 */
type SharpModule = typeof import('sharp');
type AgPsdModule = typeof import('ag-psd');

let sharpModule: Promise<SharpModule> | undefined;
let agPsdModule: Promise<AgPsdModule> | undefined;

/** sharp's default export (the constructor). */
export async function loadSharp(): Promise<SharpModule['default']> {
  return (await (sharpModule ??= import('sharp'))).default;
}

export function loadAgPsd(): Promise<AgPsdModule> {
  return (agPsdModule ??= import('ag-psd'));
}

