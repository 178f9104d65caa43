/**
 * ObjectStorage in a local directory: `<dir>/<key>` holds the bytes, `<dir>/.meta/<key>.json` the content
 * type. Keys never start a segment with a dot (object-key.ts), so `.meta` and `.tmp` never collide with one.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isValidObjectKey } from './object-key.js';
import {
  ObjectExistsError,
  ObjectSizeMismatchError,
  type ByteRange,
  type ObjectHead,
  type ObjectStorage,
  type PutStreamOptions,
  type StoredObject,
} from './object-storage.js';

/** Counts bytes as they pass and fails the stream as soon as more than `limit` arrive. */
export function byteCounter(limit: number | undefined): Transform & { count: number } {
  let count = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      count += chunk.length;
      (counter as Transform & { count: number }).count = count;
      if (limit !== undefined && count > limit) callback(new ObjectSizeMismatchError(limit, count));
      else callback(null, chunk);
    },
  }) as Transform & { count: number };
  counter.count = 0;
  return counter;
}

export class LocalDirectoryStorage implements ObjectStorage {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `local directory ${root}`;
  }

  private paths(key: string): { file: string; meta: string } {
    if (!isValidObjectKey(key)) throw new Error(`invalid object key: ${JSON.stringify(key)}`);
    return { file: path.join(this.root, key), meta: path.join(this.root, '.meta', `${key}.json`) };
  }

  private async tmpFile(): Promise<string> {
    const tmpDir = path.join(this.root, '.tmp');
    await fs.mkdir(tmpDir, { recursive: true });
    return path.join(tmpDir, randomBytes(8).toString('hex'));
  }

  private async atomicWrite(target: string, data: Buffer | string): Promise<void> {
    await fs.mkdir(path.dirname(target), { recursive: true });
    const tmp = await this.tmpFile();
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, target);
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const { file, meta } = this.paths(key);
    await this.atomicWrite(meta, JSON.stringify({ contentType, size: body.length }));
    await this.atomicWrite(file, body);
  }

  async putStream(key: string, body: Readable, options: PutStreamOptions): Promise<{ size: number }> {
    const { file, meta } = this.paths(key);
    const tmp = await this.tmpFile();
    const counter = byteCounter(options.expectedSize);
    try {
      await pipeline(body, counter, createWriteStream(tmp, { flags: 'wx' }));
      if (options.expectedSize !== undefined && counter.count !== options.expectedSize) {
        throw new ObjectSizeMismatchError(options.expectedSize, counter.count);
      }
      await fs.mkdir(path.dirname(file), { recursive: true });
      const metadata = JSON.stringify({ contentType: options.contentType, size: counter.count });
      if (options.ifNoneMatch) {
        // link() fails when the target exists: a first-writer-wins, atomic "create only". Only the writer
        // whose bytes won writes the metadata, so a refused second PUT changes neither bytes nor type. Until
        // the metadata lands (a moment, or never after a crash) the object reads as application/octet-stream.
        try {
          await fs.link(tmp, file);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ObjectExistsError(`object ${key} already exists`);
          throw err;
        }
        await fs.rm(tmp, { force: true });
        await this.atomicWrite(meta, metadata);
      } else {
        await this.atomicWrite(meta, metadata);
        await fs.rename(tmp, file);
      }
      return { size: counter.count };
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  private async contentTypeOf(meta: string): Promise<string> {
    try {
      return (JSON.parse(await fs.readFile(meta, 'utf8')) as { contentType: string }).contentType;
    } catch {
      return 'application/octet-stream'; // an object written without metadata is served as bytes
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const { file, meta } = this.paths(key);
    // The size and the bytes come from one open file: objects are replaced by rename (put), so a stat by
    // path followed by an open by path could pair the old object's size with the new one's bytes (a
    // checkpoint rewritten between the two came out cut short by its Content-Length).
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw err;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return null;
      }
      const contentType = await this.contentTypeOf(meta);
      if (range) {
        const end = Math.min(range.end, stat.size - 1);
        const size = Math.max(0, end - range.start + 1);
        if (size === 0) {
          await handle.close();
          return { body: Readable.from([]), contentType, size };
        }
        return { body: handle.createReadStream({ start: range.start, end }), contentType, size };
      }
      return { body: handle.createReadStream(), contentType, size: stat.size };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async head(key: string): Promise<ObjectHead | null> {
    const { file, meta } = this.paths(key);
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile()) return null;
      return { size: stat.size, contentType: await this.contentTypeOf(meta) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== null;
  }

  async delete(key: string): Promise<void> {
    const { file, meta } = this.paths(key);
    await fs.rm(file, { force: true });
    await fs.rm(meta, { force: true });
  }
}
