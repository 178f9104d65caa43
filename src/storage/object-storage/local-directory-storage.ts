/**
 * ObjectStorage in a local directory: `<dir>/<key>` holds the bytes, `<dir>/.meta/<key>.json` the content
 * type. Keys never start a segment with a dot (object-key.ts), so `.meta` and `.tmp` never collide with one.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isValidObjectKey } from './object-key.js';
import type { ObjectStorage, StoredObject } from './object-storage.js';

export class LocalDirectoryStorage implements ObjectStorage {
  readonly description: string;

  constructor(private readonly root: string) {
    this.description = `local directory ${root}`;
  }

  private paths(key: string): { file: string; meta: string } {
    if (!isValidObjectKey(key)) throw new Error(`invalid object key: ${JSON.stringify(key)}`);
    return { file: path.join(this.root, key), meta: path.join(this.root, '.meta', `${key}.json`) };
  }

  private async atomicWrite(target: string, data: Buffer | string): Promise<void> {
    const tmpDir = path.join(this.root, '.tmp');
    await fs.mkdir(tmpDir, { recursive: true });
    await fs.mkdir(path.dirname(target), { recursive: true });
    const tmp = path.join(tmpDir, randomBytes(8).toString('hex'));
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, target);
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const { file, meta } = this.paths(key);
    await this.atomicWrite(meta, JSON.stringify({ contentType, size: body.length }));
    await this.atomicWrite(file, body);
  }

  async get(key: string): Promise<StoredObject | null> {
    const { file, meta } = this.paths(key);
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile()) return null;
      let contentType = 'application/octet-stream';
      try {
        contentType = (JSON.parse(await fs.readFile(meta, 'utf8')) as { contentType: string }).contentType;
      } catch {
        // An object written without metadata is served as bytes.
      }
      return { body: createReadStream(file), contentType, size: stat.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fs.stat(this.paths(key).file)).isFile();
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    const { file, meta } = this.paths(key);
    await fs.rm(file, { force: true });
    await fs.rm(meta, { force: true });
  }
}
