import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { buildProgram } from '../../src/cli/main.js';

async function run(args: string[]): Promise<string> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  // Only text: the embedded database's WebAssembly runtime may write bytes of its own.
  process.stdout.write = ((chunk: string | Uint8Array) => {
    if (typeof chunk === 'string') chunks.push(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    await (await buildProgram()).parseAsync(['node', 'certdesk', ...args]);
  } finally {
    process.stdout.write = write;
  }
  return chunks.join('');
}

describe('certdesk keys (embedded database)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-keys-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const base = ['--data-dir', dir];

  it('lists nothing, rotates twice, then lists the signing key and the retired one', async () => {
    assert.deepEqual(JSON.parse(await run([...base, 'keys', 'list', '--json'])), []);
    const first = JSON.parse(await run([...base, 'keys', 'rotate', '--json'])) as { kid: string; retired: string[] };
    assert.deepEqual(first.retired, []);
    const second = JSON.parse(await run([...base, 'keys', 'rotate', '--json'])) as { kid: string; retired: string[] };
    assert.deepEqual(second.retired, [first.kid]);
    const listing = JSON.parse(await run([...base, 'keys', 'list', '--json'])) as Array<{ kid: string; state: string; published_until: string | null }>;
    assert.deepEqual(listing.map((k) => [k.kid, k.state]), [[second.kid, 'signing'], [first.kid, 'published']]);
    assert.ok(listing[1]!.published_until && Date.parse(listing[1]!.published_until) > Date.now());
    assert.match(await run([...base, 'keys', 'list']), new RegExp(`${second.kid}\\s+ES256\\s+signing`));
  });
});
