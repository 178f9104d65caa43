/**
 * c2pa-ts (@trustnxt/c2pa-ts), loaded by a dynamic `import()`: the package is ES modules only and exports
 * its entry points under the `import` condition alone, while piscina loads a thread's module with
 * `require()` first (under tsx, in tests, that is how a `.ts` thread is loaded at all), which cannot resolve
 * them. A dynamic import is left as it is by the TypeScript transforms and loads the package as ES modules
 * in every case. Only types are imported statically.
 */
export interface C2paTs {
  asset: typeof import('@trustnxt/c2pa-ts/asset');
  crypto: typeof import('@trustnxt/c2pa-ts/crypto');
  jumbf: typeof import('@trustnxt/c2pa-ts/jumbf');
  manifest: typeof import('@trustnxt/c2pa-ts/manifest');
}

let loading: Promise<C2paTs> | null = null;

export function loadC2paTs(): Promise<C2paTs> {
  loading ??= Promise.all([
    import('@trustnxt/c2pa-ts/asset'),
    import('@trustnxt/c2pa-ts/crypto'),
    import('@trustnxt/c2pa-ts/jumbf'),
    import('@trustnxt/c2pa-ts/manifest'),
  ]).then(([asset, crypto, jumbf, manifest]) => ({ asset, crypto, jumbf, manifest }));
  return loading;
}
