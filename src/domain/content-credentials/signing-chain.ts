/**
 * The X.509 chain that signs Content Credentials (DECISIONS 13, docs/content-credentials.md).
 *
 * - An operator's chain (`C2PA_CERTIFICATE_CHAIN` + `C2PA_PRIVATE_KEY`): read at start, checked (a P-256
 *   key that matches the leaf), recorded in `c2pa_signers` without its key (the anchor published for it
 *   is the last certificate of the file: the intermediate nearest the authority's root).
 * - Otherwise a generated chain, made once for the deployment on first start (race-safe across
 *   instances): a root `<host> C2PA Root` and a leaf with the C2PA signing profile (CA:FALSE,
 *   digitalSignature, extended key usages emailProtection and 1.3.6.1.4.1.62558.2.1), both keys kept
 *   encrypted with MASTER_KEY like the token keys. Without a timestamp authority a file's signature is
 *   judged against the leaf's validity at the time it is checked, so the leaf is long-lived (10 years) and
 *   is renewed under the same root once it has less than a year left.
 *
 * A chain that is no longer the configured one is retired, never deleted: its anchor stays published for
 * as long as a file it signed exists.
 */
import 'reflect-metadata';
import { createHash, createPrivateKey, createPublicKey, sign as signBytes, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as x509 from '@peculiar/x509';
import type { Db } from '../../storage/database.js';
import { decryptPrivateKey, encryptPrivateKey } from '../../storage/key-encryption.js';
import {
  findCurrentC2paSigner,
  findLatestGeneratedC2paSigner,
  findC2paSigner,
  insertC2paSigner,
  reinstateC2paSigner,
  retireC2paSigners,
  withC2paSignersLock,
  type C2paSignerRow,
} from './c2pa-signer.repository.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/** The OID of the C2PA claim-signing extended key usage. */
export const C2PA_SIGNING_EKU = '1.3.6.1.4.1.62558.2.1';
const EMAIL_PROTECTION_EKU = '1.3.6.1.5.5.7.3.4';
const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
export const ROOT_VALIDITY_DAYS = 25 * 365;
export const LEAF_VALIDITY_DAYS = 10 * 365;
export const LEAF_RENEWAL_DAYS = 365;

/** A chain ready to sign: ES256 over the bytes, and the certificates (DER) for `x5chain`. */
export interface C2paSigner {
  readonly signerId: string;
  readonly source: 'generated' | 'operator';
  /** DER certificates, the leaf first, then intermediates (no root). */
  readonly chainDer: readonly Uint8Array[];
  /** ES256 signature of `data` as IEEE P1363 (r || s, 64 bytes), as COSE wants it. */
  sign(data: Uint8Array): Uint8Array;
}

export interface SigningChainOptions {
  masterKey: string | null;
  /** The deployment's public base URL: its host names the generated root. */
  publicBaseUrl: string;
  chainPath: string | null;
  keyPath: string | null;
  now?: () => Date;
}

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const certOf = (der: Uint8Array): x509.X509Certificate => new x509.X509Certificate(new Uint8Array(der) as Uint8Array<ArrayBuffer>);

function pemToDerList(pem: string): Uint8Array[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new Uint8Array(new x509.X509Certificate(block).rawData));
}

function derToPem(der: Uint8Array): string {
  return certOf(der).toString('pem');
}

function signerFrom(row: Pick<C2paSignerRow, 'signer_id' | 'source' | 'chain_pem'>, key: KeyObject): C2paSigner {
  return {
    signerId: row.signer_id,
    source: row.source,
    chainDer: pemToDerList(row.chain_pem),
    sign: (data) => new Uint8Array(signBytes('sha256', data, { key, dsaEncoding: 'ieee-p1363' })),
  };
}

/**
 * A signer from PEM text: a chain (leaf first) and its leaf's private key. For tools and tests that sign
 * as someone else (a camera, another service); the service itself goes through ensureC2paSigner.
 */
export function signerFromPem(chainPem: string, keyPem: string): C2paSigner {
  const chain = pemToDerList(chainPem);
  return signerFrom({ signer_id: sha256Hex(chain[0]!), source: 'operator', chain_pem: chainPem }, createPrivateKey(keyPem));
}

/**
 * A fresh root and C2PA signing leaf named `name` (not stored): PEM of the chain (the leaf, then the
 * intermediate CA when `intermediate`), the root and the leaf's key. An authority's chain has the
 * intermediate; the service's generated one does not.
 */
export async function generateSigningChain(name: string, options: { intermediate?: boolean; now?: Date } = {}): Promise<{ chainPem: string; rootPem: string; keyPem: string }> {
  const now = options.now ?? new Date();
  if (!options.intermediate) {
    const row = await newGeneratedRow({ masterKey: null, publicBaseUrl: `https://${name}`, chainPath: null, keyPath: null }, now, undefined, name);
    return { chainPem: row.chain_pem, rootPem: row.anchor_pem, keyPem: row.leaf_private_key! };
  }
  const rootRow = await newGeneratedRow({ masterKey: null, publicBaseUrl: `https://${name}`, chainPath: null, keyPath: null }, now, undefined, name);
  const root = new x509.X509Certificate(rootRow.anchor_pem);
  const rootKey = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(rootRow.root_private_key!).export({ type: 'pkcs8', format: 'der' }), EC_P256, false, ['sign']);
  const caKeys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const intermediate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${name} Issuing CA, O=${name}`,
    issuer: root.subject,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + LEAF_VALIDITY_DAYS * DAY_MS),
    signingKey: rootKey,
    publicKey: caKeys.publicKey,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(root),
    ],
  });
  const { leaf, keys } = await issueLeaf(name, intermediate, caKeys.privateKey, now);
  return { chainPem: `${leaf.toString('pem')}\n${intermediate.toString('pem')}\n`, rootPem: rootRow.anchor_pem, keyPem: await exportPkcs8Pem(keys.privateKey) };
}

function keyOf(row: C2paSignerRow, which: 'leaf' | 'root', masterKey: string | null): KeyObject {
  const stored = which === 'leaf' ? row.leaf_private_key : row.root_private_key;
  if (!stored) throw new Error(`C2PA signer ${row.signer_id} has no ${which} key stored`);
  let pem = stored;
  if (row.encrypted) {
    if (!masterKey) throw new Error(`C2PA signer ${row.signer_id} is encrypted but MASTER_KEY is not set`);
    pem = decryptPrivateKey(stored, masterKey, `c2pa:${row.signer_id}:${which}`);
  }
  return createPrivateKey(pem);
}

async function exportPkcs8Pem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
}

function serial(): string {
  // 16 random bytes, the top bit clear: a positive INTEGER of at most 20 octets (RFC 5280 4.1.2.2).
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0]! &= 0x7f;
  bytes[0]! |= 0x01;
  return Buffer.from(bytes).toString('hex');
}

/** The deployment's name in its generated root: the public host (`certdesk.example`). */
export function deploymentName(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).host;
}

/** A leaf with the C2PA signing profile, issued by `root` (whose private key signs it). */
async function issueLeaf(
  name: string,
  root: x509.X509Certificate,
  rootKey: CryptoKey,
  now: Date,
): Promise<{ leaf: x509.X509Certificate; keys: CryptoKeyPair }> {
  const keys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${name} Content Credentials, O=${name}`,
    issuer: root.subject,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + LEAF_VALIDITY_DAYS * DAY_MS),
    signingKey: rootKey,
    publicKey: keys.publicKey,
    signingAlgorithm: EC_P256,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([EMAIL_PROTECTION_EKU, C2PA_SIGNING_EKU], false),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(root),
    ],
  });
  return { leaf, keys };
}

async function newGeneratedRow(
  options: SigningChainOptions,
  now: Date,
  existingRoot?: { cert: x509.X509Certificate; key: KeyObject },
  name = deploymentName(options.publicBaseUrl),
): Promise<Omit<C2paSignerRow, 'created_at' | 'retired_at'>> {
  let root: x509.X509Certificate;
  let rootKey: CryptoKey;
  let rootKeyPem: string;
  if (existingRoot) {
    root = existingRoot.cert;
    rootKeyPem = existingRoot.key.export({ type: 'pkcs8', format: 'pem' }) as string;
    rootKey = await webcrypto.subtle.importKey('pkcs8', existingRoot.key.export({ type: 'pkcs8', format: 'der' }), EC_P256, true, ['sign']);
  } else {
    const rootKeys = (await webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])) as CryptoKeyPair;
    root = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: `CN=${name} C2PA Root, O=${name}`,
      notBefore: new Date(now.getTime() - DAY_MS),
      notAfter: new Date(now.getTime() + ROOT_VALIDITY_DAYS * DAY_MS),
      keys: rootKeys,
      signingAlgorithm: EC_P256,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
      ],
    });
    rootKey = rootKeys.privateKey;
    rootKeyPem = await exportPkcs8Pem(rootKeys.privateKey);
  }
  const { leaf, keys } = await issueLeaf(name, root, rootKey, now);
  const signerId = sha256Hex(new Uint8Array(leaf.rawData));
  const leafKeyPem = await exportPkcs8Pem(keys.privateKey);
  const seal = (pem: string, which: 'leaf' | 'root') => (options.masterKey ? encryptPrivateKey(pem, options.masterKey, `c2pa:${signerId}:${which}`) : pem);
  return {
    signer_id: signerId,
    source: 'generated',
    chain_pem: leaf.toString('pem') + '\n',
    anchor_pem: root.toString('pem') + '\n',
    leaf_private_key: seal(leafKeyPem, 'leaf'),
    root_private_key: seal(rootKeyPem, 'root'),
    encrypted: options.masterKey !== null,
  };
}

/** Reads and checks an operator's chain and key. */
/**
 * An operator's chain must name who vouches for the leaf: the leaf, then each certificate's issuer in turn
 * (intermediates; the authority's root may end it or be left out). A leaf alone is refused: the anchor
 * published for it would be the signing certificate itself, which no C2PA validator treats as a trust
 * anchor, so every file would read as untrusted.
 */
function assertIssuedInOrder(chain: readonly Uint8Array[], chainPath: string): void {
  if (chain.length < 2) {
    throw new Error(`C2PA_CERTIFICATE_CHAIN (${chainPath}) holds only one certificate: give the leaf, then the certificates that issued it up to the authority's root (intermediates; the root may be left out)`);
  }
  const certs = chain.map((der) => new X509Certificate(der));
  for (let i = 0; i + 1 < certs.length; i++) {
    if (!certs[i]!.verify(certs[i + 1]!.publicKey)) {
      throw new Error(`C2PA_CERTIFICATE_CHAIN (${chainPath}): certificate ${i + 1} (${certs[i]!.subject.replace(/\n/g, ', ')}) is not signed by certificate ${i + 2}: list the leaf first, then each issuer in order`);
    }
  }
}

async function readOperatorChain(chainPath: string, keyPath: string): Promise<{ row: Omit<C2paSignerRow, 'created_at' | 'retired_at'>; key: KeyObject }> {
  const chainPem = await readFile(chainPath, 'utf8');
  const chain = pemToDerList(chainPem);
  if (chain.length === 0) throw new Error(`C2PA_CERTIFICATE_CHAIN (${chainPath}) holds no PEM certificate`);
  let key: KeyObject;
  try {
    key = createPrivateKey(await readFile(keyPath, 'utf8'));
  } catch (err) {
    // The message of a parse error never includes the key's bytes.
    throw new Error(`C2PA_PRIVATE_KEY (${keyPath}) is not a readable PEM private key`, { cause: err });
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('C2PA_PRIVATE_KEY must be a P-256 (prime256v1) EC key: Content Credentials are signed ES256');
  const leafKey = createPublicKey(certOf(chain[0]!).publicKey.toString('pem'));
  const mine = createPublicKey(key).export({ type: 'spki', format: 'der' });
  if (!leafKey.export({ type: 'spki', format: 'der' }).equals(mine)) throw new Error('C2PA_PRIVATE_KEY does not belong to the first certificate of C2PA_CERTIFICATE_CHAIN (the leaf must come first)');
  assertIssuedInOrder(chain, chainPath);
  return {
    key,
    row: {
      signer_id: sha256Hex(chain[0]!),
      source: 'operator',
      chain_pem: chain.map(derToPem).join('\n') + '\n',
      anchor_pem: derToPem(chain[chain.length - 1]!) + '\n',
      leaf_private_key: null,
      root_private_key: null,
      encrypted: false,
    },
  };
}

function leafExpiresSoon(row: C2paSignerRow, now: Date): boolean {
  const leaf = certOf(pemToDerList(row.chain_pem)[0]!);
  return leaf.notAfter.getTime() - now.getTime() < LEAF_RENEWAL_DAYS * DAY_MS;
}

/**
 * The chain that signs from now on, made or recorded as the configuration says (call once at start).
 * @returns the signer, and whether it is a generated chain (verifiers call it untrusted until they add its root)
 */
export async function ensureC2paSigner(db: Db, options: SigningChainOptions): Promise<C2paSigner> {
  const now = (options.now ?? (() => new Date()))();
  if (options.chainPath && options.keyPath) {
    const { row, key } = await readOperatorChain(options.chainPath, options.keyPath);
    await withC2paSignersLock(db, async (trx) => {
      const current = await findCurrentC2paSigner(trx);
      if (current?.signer_id === row.signer_id) return;
      await retireC2paSigners(trx);
      if (await findC2paSigner(trx, row.signer_id)) await reinstateC2paSigner(trx, row.signer_id);
      else await insertC2paSigner(trx, row);
    });
    return signerFrom(row, key);
  }
  // Fast path without the lock: every start after the first.
  const current = await findCurrentC2paSigner(db);
  if (current?.source === 'generated' && !leafExpiresSoon(current, now)) return signerFrom(current, keyOf(current, 'leaf', options.masterKey));
  const chosen = await withC2paSignersLock(db, async (trx) => {
    const again = await findCurrentC2paSigner(trx);
    if (again?.source === 'generated' && !leafExpiresSoon(again, now)) return again;
    const previous = again?.source === 'generated' ? again : await findLatestGeneratedC2paSigner(trx);
    await retireC2paSigners(trx);
    if (previous && !leafExpiresSoon(previous, now)) {
      await reinstateC2paSigner(trx, previous.signer_id);
      return { ...previous, retired_at: null };
    }
    // A new leaf under the deployment's root when there is one (verifiers who trusted it keep trusting).
    const root = previous ? { cert: new x509.X509Certificate(previous.anchor_pem), key: keyOf(previous, 'root', options.masterKey) } : undefined;
    const row = await newGeneratedRow(options, now, root);
    await insertC2paSigner(trx, row);
    return { ...row, created_at: now, retired_at: null };
  });
  return signerFrom(chosen, keyOf(chosen, 'leaf', options.masterKey));
}
