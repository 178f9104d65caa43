/**
 * Analysis benchmark (`npm run bench:analysis`): not a test.
 *
 * Measures the analysis job (`file_type`, `metadata`, `layer_check` with its JPEG preview; `ai_detection`
 * is not configured, so not run) on 1 MB PNGs, the way `certdesk worker` runs it: orders queued in a
 * PostgreSQL database (a throw-away database next to BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres), assets in local object storage, one job at a time, the
 * decoding in the production DecoderPool (one worker thread, the header checks and limits of the default
 * configuration) and libvips limited to one thread, so the figure is per core. CPU time is the process's
 * (its threads included). Reports orders/s of wall time and of CPU
 * time (user + system of this process: the per-core figure that holds on a shared, loaded machine), the
 * peak RSS during the run (sampled) and the process's VmHWM, and the load average.
 *
 * BENCH_ORDERS (default 400) orders over BENCH_ASSETS (default 8) distinct 600×600 noise PNGs (~1.08 MB).
 * Writes docs/benchmarks.md under "## Analysis".
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { toOrderRow } from '../src/domain/orders/order-document.js';
import { createOrder } from '../src/domain/orders/order-lifecycle.service.js';
import { ANALYZE_ORDER_JOB } from '../src/domain/intake/order-intake.service.js';
import { systemClock } from '../src/domain/time/clock.js';
import { enqueueJob } from '../src/jobs/job-queue.js';
import { jobHandlers } from '../src/jobs/job-runtime.js';
import { Worker } from '../src/jobs/worker.js';
import { LocalDirectoryStorage } from '../src/storage/object-storage/index.js';
import { openTestPostgres } from '../test/helpers/database.js';
import { noisePng } from '../test/helpers/analysis-files.js';
import { fileTypeFromBuffer } from 'file-type';
import { generatorFindings } from '../src/domain/analysis/metadata/generator-findings.js';
import { readMetadataFields } from '../src/domain/analysis/metadata/read-metadata.js';
import { renderAsset } from '../src/domain/analysis/rendering/render.js';
import { DecoderPool } from '../src/domain/analysis/decoding/decoder-pool.js';
import { imageLimitsFrom } from '../src/domain/analysis/decoding/image-limits.js';
import { loadConfig } from '../src/config.js';
import { writeBenchmarkSection } from './benchmarks-doc.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 400);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 8);
const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Taken before anything runs: how busy the machine already was. */
const INITIAL_LOAD = os.loadavg();

function vmHwmMb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU milliseconds per call of one step, alone, over the benchmark's assets. */
async function cpuMsPerCall(assets: Buffer[], step: (png: Buffer) => Promise<unknown>, rounds = 3): Promise<number> {
  const c0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const png of assets) await step(png);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / (rounds * assets.length);
}

async function main(): Promise<void> {
  sharp.concurrency(1);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-bench-analysis-'));
  const storage = new LocalDirectoryStorage(dir);
  const handle = await openTestPostgres(ADMIN_URL);
  try {
    const orgId = randomUUID();
    await handle.db.insertInto('organizations').values({ id: orgId, name: 'Bench', object_flag_threshold: null, weighted_confidence_threshold: null }).execute();
    const keys: Array<{ key: string; size: number }> = [];
    const assets: Buffer[] = [];
    for (let i = 0; i < ASSETS; i++) {
      const png = await noisePng(600, 600);
      assets.push(png);
      const key = `orgs/${orgId}/uploads/bench-${i}`;
      await storage.put(key, png, 'image/png');
      keys.push({ key, size: png.length });
    }
    for (let i = 0; i < ORDERS; i++) {
      const orderId = randomUUID();
      const asset = keys[i % keys.length]!;
      const row = toOrderRow(orgId, {
        order_id: orderId, username: 'bench', email: 'bench@example.com', order_state: 'In Progress', order_title: `bench ${i}`,
        asset_id: orderId, asset_name: `bench-${i}.png`, asset_last_modified_timestamp: '0', ordered_by: null, creation_time: new Date().toISOString(), project_id: null,
      });
      await handle.db.transaction().execute(async (trx) => {
        await enqueueJob(trx, ANALYZE_ORDER_JOB, { order_id: orderId });
        await createOrder(trx, systemClock, row, { key: asset.key, contentType: 'image/png', size: asset.size }, { kind: 'system', component: 'bench' });
      });
    }
    // The path production takes: serve and `certdesk worker` decode in the pool services.ts builds.
    const config = loadConfig({});
    const decoder = new DecoderPool({ limits: imageLimitsFrom(config), threads: 1, heapMb: config.analysisDecoderHeapMb });
    decoders.push(decoder);
    const worker = new Worker({ db: handle.db, concurrency: 1, handlers: jobHandlers({ db: handle.db, clock: systemClock, storage, decoder, concurrency: 1 }) });

    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()); }, 25);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let done = 0;
    for (let ran = await worker.runDue(); ran > 0; ran = await worker.runDue()) done += ran;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;

    const steps = {
      file_type: await cpuMsPerCall(assets, (png) => fileTypeFromBuffer(png.subarray(0, 4100))),
      metadata: await cpuMsPerCall(assets, async (png) => generatorFindings(await readMetadataFields(png, 'png'), png)),
      'layer_check rendering (PNG decode + JPEG preview)': await cpuMsPerCall(assets, (png) => renderAsset(png, 'png')),
    };
    const perOrderMs = (cpuSeconds * 1000) / done;
    const stepsMs = Object.values(steps).reduce((a, b) => a + b, 0);
    const states = await handle.db.selectFrom('orders').select(({ fn }) => ['order_state', fn.countAll<number>().as('n')]).groupBy('order_state').execute();
    const load = os.loadavg().map((l) => l.toFixed(2)).join(' / ');
    const mb = (keys.reduce((s, k) => s + k.size, 0) / keys.length / 1e6).toFixed(2);
    const table = [
      '| Measure | Value |',
      '|---|---|',
      `| Orders analyzed | ${done} (${states.map((s) => `${s.n} ${s.order_state}`).join(', ')}) |`,
      `| Asset | 600×600 noise PNG, ${mb} MB average, ${keys.length} distinct |`,
      `| Decoding | the DecoderPool, 1 worker thread (as \`ANALYSIS_DECODER_THREADS=1\`), default header limits |`,
      `| Wall time, one job at a time, libvips 1 thread | ${seconds.toFixed(2)} s → **${(done / seconds).toFixed(1)} orders/s** |`,
      `| CPU time (user + system) | ${cpuSeconds.toFixed(2)} s → **${(done / cpuSeconds).toFixed(1)} orders/s per core** |`,
      `| Peak RSS during the run (sampled every 25 ms) | **${(peakRss / 1024 / 1024).toFixed(0)} MB** |`,
      `| VmHWM of the process (setup included) | ${vmHwmMb().toFixed(0)} MB |`,
      ...Object.entries(steps).map(([name, ms]) => `| CPU per order: ${name}, alone, in this thread | ${ms.toFixed(1)} ms |`),
      `| CPU per order: queue, database client, storage, documents, header check, copies to the decoder thread (the rest) | ${(perOrderMs - stepsMs).toFixed(1)} ms of ${perOrderMs.toFixed(1)} ms |`,
      `| Load average (1 / 5 / 15 min) | at the start ${INITIAL_LOAD.map((l) => l.toFixed(2)).join(' / ')}; at the end ${load}; on ${os.cpus().length} cores |`,
      '',
      '| Goal | Result |',
      '|---|---|',
      `| ≥ 50 orders/s per core of CPU time (${(done / cpuSeconds).toFixed(1)}) | ${done / cpuSeconds >= 50 ? 'met' : '**not met**'} |`,
      `| peak worker RSS ≤ 400 MB (${(peakRss / 1024 / 1024).toFixed(0)} MB) | ${peakRss / 1024 / 1024 <= 400 ? 'met' : '**not met**'} |`,
    ].join('\n');
    process.stdout.write(`${table}\n`);
    writeBenchmarkSection(
      '## Analysis',
      `## Analysis\n\n\`npm run bench:analysis\` (bench/analysis.ts), ${new Date().toISOString()}: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, PostgreSQL at ${new URL(ADMIN_URL).host} on the same machine.\n` +
        'The analysis job as `certdesk worker` runs it (file_type, metadata, layer_check with the JPEG preview; no detection service configured), ' +
        'jobs claimed from the PostgreSQL queue one at a time, assets read from local object storage, decoded in the worker-thread pool production uses (header check, metadata, rendering). Goal: at least 50 orders/s per core, peak worker RSS at most 400 MB.\n' +
        'The machine is shared with other builds and test runs while this runs: the CPU-time figure is the per-core rate; the wall-clock figure depends on the load shown.\n\n' +
        `${table}\n`,
    );
  } finally {
    for (const d of decoders) await d.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const decoders: DecoderPool[] = [];

await main();
