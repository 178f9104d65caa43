/**
 * Young-generation A/B for the listing (`npx tsx bench/young-generation.ts`): not a test. Starts
 * `node [flags] bin/certdesk serve --workers 2` from dist/ on the `npm run bench` database once per
 * variant and measures (a) (limit=200 full pages, 32 connections) with autocannon, alternating the variants
 * over --rounds rounds: req/s, p99, server CPU per request, peak RSS of the largest process. A variant is
 * the node flags given to serve (the workers inherit them): `--variants "none;--max-semi-space-size=16"`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { secretOf } from './bench-organization.js';
import { cpuMsOf, memoryOf, processTree, servingUrl, stopChild } from './server-process.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: FLAGS } = parseArgs({
  options: { variants: { type: 'string', default: 'none;--max-semi-space-size=16' }, rounds: { type: 'string', default: '2' }, duration: { type: 'string', default: '10' }, query: { type: 'string', default: 'limit=200' } },
});
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/certdesk_bench';

async function once(flags: string[]): Promise<string> {
  const child = spawn(process.execPath, [...flags, path.join(ROOT, 'bin/certdesk'), 'serve', '--workers', '2'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'certdesk-yg-')), CERTDESK_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const base = await servingUrl(child);
    const tokenRes = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'bench-big', client_secret: secretOf('big') }),
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    const url = `${base}/v1/orders?project_id=All%20Projects&${FLAGS.query}`;
    const headers = { authorization: `Bearer ${token}` };
    await autocannon({ url, connections: 32, duration: 2, headers });
    const pids = processTree(child.pid!);
    const cpu = () => pids.reduce((s, pid) => s + cpuMsOf(pid), 0);
    const before = cpu();
    const r = await autocannon({ url, connections: 32, duration: Number(FLAGS.duration), headers });
    const cpuPerReq = (cpu() - before) / r.requests.total;
    const hwm = Math.max(...pids.map((pid) => memoryOf(pid).hwm));
    return `${r.requests.average.toFixed(0)} req/s, p99 ${r.latency.p99} ms, server CPU ${cpuPerReq.toFixed(2)} ms/req, peak RSS ${hwm.toFixed(0)} MB, errors ${r.errors + r.non2xx}, load ${os.loadavg()[0]!.toFixed(1)}`;
  } finally {
    await stopChild(child, 10_000);
  }
}

async function main(): Promise<void> {
  const variants = FLAGS.variants!.split(';').map((v) => (v === 'none' ? [] : v.split(' ')));
  for (let round = 1; round <= Number(FLAGS.rounds); round++) {
    for (const flags of variants) process.stdout.write(`round ${round} [${flags.join(' ') || 'none'}] ${await once(flags)}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`young-generation: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
