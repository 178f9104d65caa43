/**
 * `multipart/form-data` on POST /v1/orders (so `curl -F file=@art.png -F order_title=…` works): a
 * `preValidation` hook that streams the `file` part to object storage as a new upload of the caller (never
 * buffered whole; at most 25 MiB) and turns the other parts into the body, so the same schema validates it
 * (pydantic-style 422s, `loc` starting with `"body"`). The handler then creates the order from that upload,
 * exactly like a JSON request naming an `upload_id`.
 *
 * Form values are text: `project_id` and `ordered_by` may be empty (null), `tags` may repeat.
 */
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest, preValidationHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { receiveUpload, UploadTooLargeError } from '../../domain/intake/upload.service.js';
import type { Clock } from '../../domain/time/clock.js';
import type { Db } from '../../storage/database.js';
import type { ObjectStorage } from '../../storage/object-storage/index.js';

/** Largest file accepted in a multipart order (larger assets use POST /v1/uploads). */
export const MULTIPART_MAX_FILE_BYTES = 25 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 of the multipart file (the Idempotency-Key fingerprint of the body). */
    multipartFileSha256?: string;
  }
}

const NULLABLE_WHEN_EMPTY = new Set(['project_id', 'ordered_by']);

async function drain(file: MultipartFile): Promise<void> {
  for await (const _chunk of file.file) void _chunk;
}

export function multipartOrderBody(deps: { db: Db; clock: Clock; storage: ObjectStorage; uploadTtlSeconds: number }): preValidationHookHandler {
  return async (request: FastifyRequest) => {
    if (!request.isMultipart()) return;
    const body: Record<string, unknown> = {};
    try {
      await readParts(request, body, deps);
    } catch (err) {
      // A malformed form (no boundary, broken framing, truncated part) is the client's fault: 400, never 500.
      if (err instanceof ApiError) throw err;
      throw new ApiError(400, 'errors.bad_request', { cause: err });
    }
    request.body = body;
  };
}

async function readParts(request: FastifyRequest, body: Record<string, unknown>, deps: { db: Db; clock: Clock; storage: ObjectStorage; uploadTtlSeconds: number }): Promise<void> {
  {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || body.file !== undefined) {
          // A second file, or a file under another name: reported as an unknown field, its bytes discarded.
          await drain(part);
          body[part.fieldname === 'file' ? 'file_2' : part.fieldname] = part.filename;
          continue;
        }
        const received = await receiveUpload(deps, request.principal, {
          fileName: part.filename || 'upload',
          contentType: part.mimetype || 'application/octet-stream',
          body: part.file,
          maxBytes: MULTIPART_MAX_FILE_BYTES,
          truncated: () => part.file.truncated,
        }).catch((err: unknown) => {
          throw err instanceof UploadTooLargeError ? new ApiError(413, 'errors.payload_too_large') : err;
        });
        body.file = received.uploadId;
        request.multipartFileSha256 = received.sha256;
      } else {
        const value = String(part.value);
        if (part.fieldname === 'tags') (body.tags as string[] | undefined) ? (body.tags as string[]).push(value) : (body.tags = [value]);
        else body[part.fieldname] = NULLABLE_WHEN_EMPTY.has(part.fieldname) && value === '' ? null : value;
      }
    }
  }
}

