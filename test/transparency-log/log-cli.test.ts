/**
 * `certdesk-client log ...` (the built bin, as a child process) against a tiled log served over HTTP from
 * memory (clients/typescript/test/tlog-fixture.ts: written with node:crypto from the specs): the verified
 * checkpoint, consistency with every older checkpoint, a full audit, and exit 9 with one line on stderr for
 * a log that rewrote its history, a checkpoint signed by another key, or tiles that lie. No database: the
 * same commands against the real service are in independent-verifier.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { entryText, makeKey, MemoryLog } from '../../clients/typescript/test/tlog-fixture.js';

const BIN = path.resolve('clients/typescript/dist/cli/certdesk-client.js');

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += String(c)));
    child.stderr.on('data', (c) => (stderr += String(c)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function entries(count: number, from: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => Buffer.from(entryText('certificate.issued', createHash('sha256').update(`cert ${from + i}`).digest('hex'), '2026-05-01T12:00:00.000Z')));
}

describe('certdesk-client log', () => {
  const key = makeKey();
  let log = new MemoryLog(key);
  let server: http.Server;
  let env: Record<string, string>;
  let dir: string;
  const kept: string[] = [];

  before(async () => {
    assert.ok(existsSync(BIN), `${BIN} is missing: run \`npm run build\``);
    dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-log-cli-'));
    server = http.createServer((req, res) => {
      const file = log.files.get((req.url ?? '').replace(/^\/log\//, ''));
      if (!file) return res.writeHead(404).end('not found');
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(file);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env = { CERTDESK_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, CERTDESK_CONFIG_DIR: dir };
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the verified checkpoint, and proves the log grew from every checkpoint it printed before', async () => {
    let total = 0;
    for (const n of [1, 3, 300, 0, 260]) {
      log.append(entries(n, total));
      total += n;
      const printed = await run(['log', 'checkpoint', '--log-key', key.keyString], env);
      assert.equal(printed.code, 0, printed.stderr);
      assert.equal(printed.stdout, log.checkpoints[log.checkpoints.length - 1]);
      assert.match(printed.stderr, new RegExp(`^verified: log\\.test/log size ${total} root `));
      const file = path.join(dir, `checkpoint-${kept.length}.txt`);
      writeFileSync(file, printed.stdout);
      kept.push(file);
    }
    for (const file of kept) {
      const checked = await run(['log', 'consistency', file, '--log-key', key.keyString], env);
      assert.equal(checked.code, 0, checked.stderr);
      assert.equal(checked.stdout, log.checkpoints[log.checkpoints.length - 1]);
      assert.match(checked.stderr, /^consistent: the log grew from \d+ to 564 entries without rewriting any\n$/);
    }
    // The key from /log/key when none is given; --json for machines.
    const json = await run(['log', 'consistency', kept[1]!, '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    const body = JSON.parse(json.stdout) as { old_size: number; size: number; consistency_proof: string[]; origin: string };
    assert.deepEqual([body.old_size, body.size, body.origin], [4, 564, 'log.test/log']);
    assert.ok(body.consistency_proof.length > 0);
    const audit = await run(['log', 'audit', '--json', '--log-key', key.keyString], env);
    assert.equal(audit.code, 0, audit.stderr);
    assert.deepEqual(JSON.parse(audit.stdout).entries, 564);
  });

  it('a rewritten log, another key, or lying tiles: exit 9 and one line on stderr', async () => {
    const good = log;
    // The same key signs a log whose entry 2 differs: a fork of the kept checkpoints.
    log = new MemoryLog(key);
    log.append([...entries(2, 0), ...entries(1, 9999), ...entries(600, 3)]);
    const forked = await run(['log', 'consistency', kept[2]!, '--log-key', key.keyString], env);
    assert.equal(forked.code, 9);
    assert.match(forked.stderr, /^certdesk-client: the log was rewritten: its tree of size 603 does not extend the old checkpoint of size 304\n$/);
    // A log that shrank.
    log = new MemoryLog(key);
    log.append(entries(2, 0));
    const shrank = await run(['log', 'consistency', kept[4]!, '--log-key', key.keyString], env);
    assert.equal(shrank.code, 9);
    assert.match(shrank.stderr, /^certdesk-client: the log shrank: the old checkpoint has 564 entries, the current one 2\n$/);
    // The right log, but a key it was not signed with.
    log = good;
    const stranger = await run(['log', 'checkpoint', '--log-key', makeKey().keyString], env);
    assert.equal(stranger.code, 9);
    assert.equal(stranger.stdout, '');
    assert.match(stranger.stderr, /^certdesk-client: the note carries no signature of the log key\n$/);
    // A tile changed after signing.
    const tile = log.files.get('tile/0/001')!;
    log.files.set('tile/0/001', Buffer.concat([tile.subarray(0, 40), Buffer.from([tile[40]! ^ 1]), tile.subarray(41)]));
    for (const args of [['log', 'consistency', kept[3]!], ['log', 'audit']]) {
      const lied = await run([...args, '--log-key', key.keyString], env);
      assert.equal(lied.code, 9, `${args.join(' ')}: ${lied.stderr}`);
      assert.equal(lied.stderr.split('\n').length, 2, lied.stderr);
    }
    log.files.set('tile/0/001', tile);
    // Unreachable: exit 8.
    const down = await run(['log', 'checkpoint'], { ...env, CERTDESK_BASE_URL: 'http://127.0.0.1:9' });
    assert.equal(down.code, 8, down.stderr);
  });
});
