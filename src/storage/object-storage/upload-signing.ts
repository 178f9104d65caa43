/**
 * Presigned uploads: a URL with which a client PUTs an object's bytes straight to object storage, valid
 * until its expiry and for exactly the announced number of bytes.
 *
 * Local directory: `{publicBaseUrl}/objects/{key}?expires=&size=&signature=`, answered by `serve`
 * (PUT /objects/*), the MAC taken over `"put2\n" + key + "\n" + size + "\n" + expires + "\n" + contentType`
 * with the deployment's presign key: the PUT must send exactly the signed Content-Type (else 403), so an
 * uploader cannot announce `image/png` and store `text/html`. S3: the AWS SDK's SigV4 presigner, Content-Length and Content-Type signed
 * (s3-storage.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { encodeKeyPath } from './object-key.js';
import { OBJECTS_PATH, type PresignCheck } from './presign.js';

export interface PresignedUpload {
  url: string;
  method: 'PUT';
  /** Headers the client must send with the bytes (they are part of the signature). */
  headers: Record<string, string>;
  expiresAt: Date;
}

export interface PresignUploadRequest {
  key: string;
  size: number;
  contentType: string;
  expiresAt: Date;
}

/** Signs uploads for one object storage. */
export interface UploadPresigner {
  presignUpload(request: PresignUploadRequest): Promise<PresignedUpload>;
}

/** The embedded storage's upload signer; PUT /objects/* verifies with `verify`. */
export class HmacUploadPresigner implements UploadPresigner {
  private readonly prefix: string;

  constructor(
    private readonly secret: Buffer,
    publicBaseUrl: string,
  ) {
    this.prefix = `${publicBaseUrl.replace(/\/+$/, '')}${OBJECTS_PATH}`;
  }

  private mac(key: string, size: string, expires: string, contentType: string): string {
    return createHmac('sha256', this.secret).update(`put2\n${key}\n${size}\n${expires}\n${contentType}`).digest('base64url');
  }

  async presignUpload(request: PresignUploadRequest): Promise<PresignedUpload> {
    const expires = String(Math.floor(request.expiresAt.getTime() / 1000));
    const size = String(request.size);
    return {
      url: `${this.prefix}${encodeKeyPath(request.key)}?expires=${expires}&size=${size}&signature=${this.mac(request.key, size, expires, request.contentType)}`,
      method: 'PUT',
      headers: { 'Content-Type': request.contentType },
      expiresAt: new Date(Number(expires) * 1000),
    };
  }

  /**
   * Checks a PUT for `key` carrying `expires`, `size` and `signature` query values and the Content-Type
   * header `contentType` (undefined when the PUT sent none: never the signed type).
   */
  verify(key: string, expires: unknown, size: unknown, signature: unknown, contentType: unknown, nowSeconds = Math.floor(Date.now() / 1000)): PresignCheck {
    if (
      typeof expires !== 'string' || typeof size !== 'string' || typeof signature !== 'string' || typeof contentType !== 'string' ||
      !/^\d{1,12}$/.test(expires) || !/^\d{1,15}$/.test(size) || !/^[A-Za-z0-9_-]{1,100}$/.test(signature)
    ) {
      return 'bad-signature';
    }
    const given = Buffer.from(signature, 'latin1');
    const expected = Buffer.from(this.mac(key, size, expires, contentType), 'latin1');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
    return Number(expires) < nowSeconds ? 'expired' : 'ok';
  }
}
