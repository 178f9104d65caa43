/**
 * A plain JPEG or PNG (one that carries no Content Credentials) credentialed with a data-hashed manifest,
 * written by c2pa-ts (@trustnxt/c2pa-ts, pure TypeScript) in the Content Credentials thread.
 *
 * Why not c2pa-rs here: c2pa-ts works on the file's own bytes (JavaScript memory: the file, and the copy
 * with the manifest segments inserted), where c2pa-rs compiled to WebAssembly copies the file into its
 * memory and writes two growing copies there, a memory that never shrinks (~100 MiB for a 20 MB JPEG).
 *
 * The manifest is the one of manifest.ts, read from the same c2pa-rs definition: claim v2 with
 * `claim_generator_info`, `dc:title`; the parent ingredient (`c2pa.ingredient.v3`); `c2pa.actions.v2` whose
 * action refers to that ingredient by a hashed URI (c2pa-rs's `ingredientIds`); every other assertion as
 * CBOR; and the hard binding, `c2pa.hash.data`: SHA-256 over the credentialed file with the manifest's
 * segments (JPEG APP11 from its marker, PNG's `caBX` chunk whole) excluded, which C2PA's data hash asks.
 *
 * The signature box is the COSE_Sign1 that cose-sign1.ts makes from the claim on the pool's side, exactly
 * `signatureSize` bytes (the box is sized before the data hash, which must not move afterwards).
 */
import { randomUUID } from 'node:crypto';
import type { CBORBox, SuperBox } from '@trustnxt/c2pa-ts/jumbf';
import type { Action, Claim, HashedURI, IngredientAssertion, Manifest, ManifestStore } from '@trustnxt/c2pa-ts/manifest';
import { loadC2paTs, type C2paTs } from './c2pa-ts-library.js';
import { useNodeCryptoForC2paTs } from './node-crypto-provider.js';

/** Formats written here (c2pa-rs keeps WebP and TIFF, and any file that already carries a manifest store). */
export const DATA_HASHED_MEDIA_TYPES: readonly string[] = ['image/jpeg', 'image/png'];

/** JUMBF content type UUIDs (C2PA, "JUMBF boxes"): CBOR content, and the claim signature. */
const CBOR_UUID = uuidBytes('63626F72-0011-0010-8000-00AA00389B71');
const SIGNATURE_UUID = uuidBytes('63326373-0011-0010-8000-00AA00389B71');

function uuidBytes(uuid: string): Uint8Array {
  return new Uint8Array(Buffer.from(uuid.replace(/-/g, ''), 'hex'));
}

/** The subset of a c2pa-rs manifest definition (manifest.ts) this writer reads. */
export interface DefinitionJson {
  claim_generator_info: Array<{ name: string; version?: string }>;
  title: string;
  format: string;
  assertions: Array<{ label: string; data: unknown }>;
}

/** The definition's fields written here (plus `ingredients`, when empty: the parent comes as `IngredientJson`). */
const READ_FIELDS: ReadonlySet<string> = new Set(['claim_generator_info', 'title', 'format', 'assertions']);

export interface IngredientJson {
  title: string;
  format: string;
  relationship: string;
  label: string;
}

export interface DataHashedInput {
  bytes: Uint8Array;
  mediaType: string;
  definition: DefinitionJson;
  ingredient: IngredientJson;
  /** Size of the signature box's COSE_Sign1, exactly (coseReserveSize). */
  signatureSize: number;
  /** The tagged COSE_Sign1 of the claim's bytes, `signatureSize` bytes long. */
  signClaim: (claim: Uint8Array) => Promise<Uint8Array>;
}

/** Why the file is left to c2pa-rs: it is not a plain JPEG or PNG. */
export class NotPlainFile extends Error {
  override name = 'NotPlainFile';
}

/** The writer's own c2pa-ts components (classes over the loaded library, made once). */
function componentsOf(lib: C2paTs) {
  /** An assertion whose data is stored as CBOR as given (`org.certdesk.certificate`). */
  class CborAssertion extends lib.manifest.Assertion {
    override uuid = CBOR_UUID;
    constructor(
      override label: string,
      private readonly data: unknown,
    ) {
      super();
    }
    override readContentFromJUMBF(): void {
      throw new Error('write only');
    }
    override generateJUMBFBoxForContent(): CBORBox {
      const box = new lib.jumbf.CBORBox();
      box.content = this.data;
      return box;
    }
  }

  /** c2pa-ts writes no action-level `description` (C2PA's action-items-map-v2 has one): added to its CBOR. */
  class ActionsV2Assertion extends lib.manifest.ActionAssertion {
    constructor(private readonly descriptions: ReadonlyArray<string | undefined>) {
      super();
      this.label = 'c2pa.actions.v2';
    }
    override generateJUMBFBoxForContent(claim: Claim): CBORBox {
      const box = super.generateJUMBFBoxForContent(claim) as CBORBox;
      const content = box.content as { actions: Array<Record<string, unknown>> };
      content.actions.forEach((action, i) => {
        const description = this.descriptions[i];
        if (description !== undefined) action.description = description;
      });
      box.rawContent = undefined;
      return box;
    }
  }

  /** The `c2pa.signature` box: a COSE_Sign1 made elsewhere, a zero placeholder of the same size until then. */
  class ForeignSignature extends lib.manifest.Signature {
    private cose: Uint8Array;
    constructor(
      private readonly size: number,
      private readonly signClaim: (claim: Uint8Array) => Promise<Uint8Array>,
    ) {
      super(undefined as unknown as ConstructorParameters<typeof lib.manifest.Signature>[0]);
      this.cose = new Uint8Array(size);
    }
    override generateJUMBFBox(): SuperBox {
      const box = new lib.jumbf.SuperBox();
      box.descriptionBox = new lib.jumbf.DescriptionBox();
      box.descriptionBox.label = this.label;
      box.descriptionBox.uuid = SIGNATURE_UUID;
      const content = new lib.jumbf.CBORBox();
      content.rawContent = this.cose;
      box.contentBoxes.push(content);
      this.sourceBox = box;
      return box;
    }
    override async sign(_signer: unknown, claim: Uint8Array): Promise<void> {
      const cose = await this.signClaim(claim);
      if (cose.length !== this.size) throw new Error(`the signature takes ${cose.length} bytes, not the ${this.size} reserved`);
      this.cose = cose;
    }
  }

  return { CborAssertion, ActionsV2Assertion, ForeignSignature };
}

type Components = ReturnType<typeof componentsOf>;
let components: Components | null = null;

function actionsOf(c: Components, manifest: Manifest, data: unknown, ingredients: ReadonlyMap<string, IngredientAssertion>): InstanceType<Components['ActionsV2Assertion']> {
  const actions = ((data as { actions?: unknown[] }).actions ?? []) as Array<Record<string, unknown> & { action: string; parameters?: Record<string, unknown> }>;
  const assertion = new c.ActionsV2Assertion(actions.map((a) => (typeof a.description === 'string' ? a.description : undefined)));
  assertion.actions = actions.map(({ description: _description, parameters, ...rest }) => {
    const { ingredientIds, ...otherParameters } = parameters ?? {};
    const refs: HashedURI[] = ((ingredientIds as string[] | undefined) ?? []).map((id) => {
      const ingredient = ingredients.get(id);
      if (!ingredient) throw new Error(`an action refers to the unknown ingredient ${id}`);
      return manifest.createAssertionReference(ingredient);
    });
    return { ...rest, ...(parameters ? { parameters: { ...otherParameters, ...(refs.length ? { ingredients: refs } : {}) } } : {}) } as Action;
  });
  return assertion;
}

/**
 * The credentialed copy of a plain JPEG or PNG.
 * @throws NotPlainFile when the file carries a manifest store (c2pa-rs keeps it as the ingredient's) or is
 *   of another format; anything else thrown means the file could not be read (malformed)
 */
export async function credentialPlainFile(input: DataHashedInput): Promise<Uint8Array> {
  if (!DATA_HASHED_MEDIA_TYPES.includes(input.mediaType)) throw new NotPlainFile(`${input.mediaType} is written by c2pa-rs`);
  const lib = await loadC2paTs();
  useNodeCryptoForC2paTs(lib);
  const c = (components ??= componentsOf(lib));
  const asset = input.mediaType === 'image/png' ? new lib.asset.PNG(input.bytes) : new lib.asset.JPEG(input.bytes);
  if (asset.getManifestJUMBF()) throw new NotPlainFile('the file carries a manifest store');

  // Every part of the definition is written, or the file is not made: the two writers must not differ in meaning.
  const unread = Object.entries(input.definition).filter(([key, value]) => !READ_FIELDS.has(key) && !(key === 'ingredients' && Array.isArray(value) && value.length === 0));
  if (unread.length) throw new Error(`the definition's ${unread.map(([key]) => key).join(', ')} is not written by this writer`);

  const store = new lib.manifest.ManifestStore();
  const generator = input.definition.claim_generator_info[0];
  if (!generator) throw new Error('the definition names no claim generator');
  // The signer is only read by c2pa-ts's own signature box, replaced below by the pool's COSE_Sign1.
  const noSigner = { algorithm: -7, certificate: undefined, chainCertificates: [] } as unknown as Parameters<ManifestStore['createManifest']>[0]['signer'];
  const manifest = store.createManifest({ claimVersion: lib.manifest.ClaimVersion.V2, assetFormat: input.definition.format, instanceID: `xmp:iid:${randomUUID()}`, defaultHashAlgorithm: 'SHA-256', signer: noSigner });
  const claim = manifest.claim!;
  claim.claimGeneratorName = generator.name;
  claim.claimGeneratorVersion = generator.version;
  claim.title = input.definition.title;
  manifest.signature = new c.ForeignSignature(input.signatureSize, input.signClaim);

  const relationship = Object.values(lib.manifest.RelationshipType).find((r) => r === input.ingredient.relationship);
  if (!relationship) throw new Error(`unknown ingredient relationship ${input.ingredient.relationship}`);
  const ingredient = lib.manifest.IngredientAssertion.createV3(relationship);
  ingredient.title = input.ingredient.title;
  ingredient.format = input.ingredient.format;
  manifest.addAssertion(ingredient);
  const ingredients = new Map([[input.ingredient.label, ingredient]]);
  for (const { label, data } of input.definition.assertions) {
    manifest.addAssertion(label === 'c2pa.actions.v2' ? actionsOf(c, manifest, data, ingredients) : new c.CborAssertion(label, data));
  }
  const dataHash = lib.manifest.DataHashAssertion.create('SHA-256');
  dataHash.name = 'jumbf manifest';
  manifest.addAssertion(dataHash);

  // Room for the manifest first (its size does not depend on the hash), then the hash over the result.
  await asset.ensureManifestSpace(store.measureSize());
  await dataHash.updateWithAsset(asset);
  await manifest.sign(noSigner);
  await asset.writeManifestJUMBF(store.getBytes());
  return asset.getDataRange();
}
