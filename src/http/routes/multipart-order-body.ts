/**
 * `multipart/form-data` on POST /v1/orders (so `curl -F order_title=… -F file=@art.png` works): a
 * `preValidation` hook that reads the form's fields up to the `file` part and stops there, so the same
 * schema validates them (pydantic-style 422s, `loc` starting with `"body"`), and the role, project,
 * Idempotency-Key and upload limits are checked before a single byte of the file is stored. Only then does
 * the handler stream the file to object storage (never buffered whole; at most 25 MiB) and create the
 * order, exactly like a JSON request naming an `upload_id`.
 *
 * Fields must come before the file. A form whose file comes first is refused (its fields are not read
 * before the checks, so `order_title` is missing: 422) and its file is read and discarded, never stored.
 * A part after the file is refused (422 `extra_forbidden`) and the just-stored file deleted again.
 * Form values are text: `project_id` and `ordered_by` may be empty (null), `tags` may repeat.
 */
import { createHash } from 'node:crypto';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest, onResponseHookHandler, preValidationHookHandler } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../../domain/errors.js';

/** Largest file accepted in a multipart order (larger assets use POST /v1/uploads). */
export const MULTIPART_MAX_FILE_BYTES = 25 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** The form's file part, not read yet (multipart POST /v1/orders). */
    multipartFile?: PendingMultipartFile;
  }
}

const NULLABLE_WHEN_EMPTY = new Set(['project_id', 'ordered_by']);

async function drain(stream: Readable): Promise<void> {
  for await (const _chunk of stream) void _chunk;
}

/**
 * The file part of a form, held unread until the checks passed: taken once by the code that stores it, or
 * read and discarded (hashed on the way, for the Idempotency-Key fingerprint) when the request ends otherwise.
 */
export class PendingMultipartFile {
  private taken = false;
  private sha256: string | undefined;
  private hashing: Promise<string> | undefined;

  /** Why the form broke off while its file was arriving (no closing boundary: the body ended inside the file). */
  private broken: Error | undefined;

  constructor(
    private readonly part: MultipartFile,
    private readonly rest: AsyncIterator<Multipart>,
  ) {
    // Listened to from the start: the body may end inside the file before anyone reads it.
    part.file.on('error', (err: Error) => {
      this.broken ??= err;
    });
  }

  /** Whether the form broke off inside the file (the request answers 400 and stores nothing). */
  get incomplete(): boolean {
    return this.broken !== undefined || (this.part.file.destroyed && !this.part.file.readableEnded);
  }

  get fileName(): string {
    return this.part.filename || 'upload';
  }

  get contentType(): string {
    return this.part.mimetype || 'application/octet-stream';
  }

  /** Whether more bytes than MULTIPART_MAX_FILE_BYTES were sent (the stream stopped at the limit). */
  get truncated(): boolean {
    return this.part.file.truncated;
  }

  /** The file's stream, for the one consumer that stores it; it reports the bytes' hash with `received`. */
  take(): Readable {
    if (this.taken || this.hashing) throw new Error('the multipart file was already read');
    if (this.incomplete) throw incompleteForm(this.broken);
    this.taken = true;
    return this.part.file;
  }

  /** The stored file's SHA-256 (hex), from the consumer that took it. */
  received(sha256: string): void {
    this.sha256 = sha256;
  }

  /**
   * What identifies the file besides its name: its media type and the SHA-256 of its bytes. When nobody
   * took the stream, it is read now and discarded (never stored); when it was taken but not stored whole
   * (too large, a storage error), undefined.
   */
  async contentFingerprint(): Promise<string | undefined> {
    if (this.taken) return this.sha256 === undefined ? undefined : `${this.contentType}\n${this.sha256}`;
    this.hashing ??= (async () => {
      const hash = createHash('sha256');
      for await (const chunk of this.part.file) hash.update(chunk as Buffer);
      return hash.digest('hex');
    })();
    return `${this.contentType}\n${await this.hashing}`;
  }

  /** The names of the parts that follow the file (read and discarded); call once the file was read. */
  async partsAfterFile(): Promise<string[]> {
    const names: string[] = [];
    try {
      for (let next = await this.rest.next(); !next.done; next = await this.rest.next()) {
        names.push(next.value.fieldname);
        if (next.value.type === 'file') await drain(next.value.file);
      }
    } catch (err) {
      // The file arrived whole but the form broke off after it (no closing delimiter): still a broken form.
      if (isLimitError(err)) throw err;
      this.broken ??= err as Error;
      throw incompleteForm(err);
    }
    return names;
  }

  /** Reads and discards whatever of the form is left (a refused request's file and the parts after it). */
  async discard(): Promise<void> {
    if (!this.taken && !this.hashing) {
      this.taken = true;
      await drain(this.part.file);
    } else if (this.hashing) {
      await this.hashing;
    } else if (!this.part.file.readableEnded && !this.part.file.destroyed) {
      return; // the consumer still owns the stream
    }
    await this.partsAfterFile();
  }
}

/** @fastify/multipart's limits (parts, files, fields, sizes): errors of their own, answered as such by the route. */
function isLimitError(err: unknown): boolean {
  return typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('FST_');
}

/** busboy's words for a body that ended before the form's closing delimiter (it has no error codes). */
function endedEarly(err: unknown): boolean {
  return err instanceof Error && /unexpected end of multipart data|terminated early/i.test(err.message);
}

/** 400: the form ended before its closing boundary (inside the file, or before the file's bytes began). */
export function incompleteForm(cause?: unknown): ApiError {
  return new ApiError(400, 'errors.multipart_incomplete', { cause });
}

/** preValidation: the form's fields become the body; the file part waits in `request.multipartFile`. */
export function multipartOrderBody(): preValidationHookHandler {
  return async (request: FastifyRequest) => {
    if (!request.isMultipart()) return;
    const body: Record<string, unknown> = {};
    try {
      await readFieldsUpToFile(request, body);
    } catch (err) {
      // A malformed form (no boundary, broken framing, truncated part) is the client's fault: 400, never 500.
      if (err instanceof ApiError) throw err;
      if (endedEarly(err)) throw incompleteForm(err);
      throw new ApiError(400, 'errors.bad_request', { cause: err });
    }
    request.body = body;
  };
}

/** onResponse: whatever the handler did not read of the form is read and discarded, so the connection stays usable. */
export const discardUnreadMultipart: onResponseHookHandler = async (request) => {
  await request.multipartFile?.discard().catch(() => undefined);
};

async function readFieldsUpToFile(request: FastifyRequest, body: Record<string, unknown>): Promise<void> {
  const parts = request.parts()[Symbol.asyncIterator]();
  for (let next = await parts.next(); !next.done; next = await parts.next()) {
    const part = next.value;
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        // A file under another name: reported as an unknown field, its bytes discarded.
        await drain(part.file);
        body[part.fieldname] = part.filename;
        continue;
      }
      // The file: the schema sees its name (a string), the bytes wait for the handler.
      const pending = new PendingMultipartFile(part, parts);
      request.multipartFile = pending;
      request.multipartContentFingerprint = () => pending.contentFingerprint();
      body.file = pending.fileName;
      return;
    }
    const value = String(part.value);
    if (part.fieldname === 'tags') (body.tags as string[] | undefined) ? (body.tags as string[]).push(value) : (body.tags = [value]);
    else body[part.fieldname] = NULLABLE_WHEN_EMPTY.has(part.fieldname) && value === '' ? null : value;
  }
}
