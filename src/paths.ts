/** Locations inside the installed package, the same whether code runs from src/ (tsx) or dist/ (built). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'migrations'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`certdesk package root not found above ${start}`);
    dir = parent;
  }
}

export const packageRoot = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
export const migrationsDir = path.join(packageRoot, 'migrations');

let version: string | null = null;
/** The package's version (package.json), e.g. in the claim generator of Content Credentials. */
export function serviceVersion(): string {
  version ??= String((JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0');
  return version;
}
