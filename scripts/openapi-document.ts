/**
 * Prints the OpenAPI document the application serves (GET /openapi.json) on standard output, from the
 * real application built in-process on a throw-away in-memory PGlite database. The TypeScript client's
 * type generator reads it (`npm run generate -w @certdesk/client`).
 *
 * Run: `node --import tsx scripts/openapi-document.ts > openapi.json`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServices } from '../src/app/services.js';
import { loadConfig } from '../src/config.js';
import { buildServer } from '../src/app/http-server.js';
import { createServiceMetrics } from '../src/metrics/service-metrics.js';
import { openDatabase } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';

/** The served document, as parsed JSON. */
export async function servedOpenApiDocument(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certdesk-openapi-'));
  const database = await openDatabase({ databaseUrl: null, pgliteDir: null });
  try {
    await migrate(database);
    const config = loadConfig({
      CERTDESK_ENV: 'test',
      LOG_LEVEL: 'silent',
      PUBLIC_BASE_URL: 'https://api.certdesk.test',
      ISSUER_URL: 'https://api.certdesk.test',
      DATA_DIR: dir,
      OBJECT_STORAGE_DIR: dir,
    });
    const services = await createServices({ config, database, metrics: createServiceMetrics({ processMetrics: false }) });
    const app = await buildServer(services);
    app.addHook('onClose', () => services.close());
    try {
      await app.ready();
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}`);
      return res.json() as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  process.stdout.write(`${JSON.stringify(await servedOpenApiDocument(), null, 2)}\n`);
}
