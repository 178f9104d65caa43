/**
 * Where `certdesk-client` finds its credentials: the environment (`CERTDESK_BASE_URL`,
 * `CERTDESK_CLIENT_ID`, `CERTDESK_CLIENT_SECRET`, all three) first, else the file `login` wrote in the
 * user's config directory (`$CERTDESK_CONFIG_DIR`, else `$XDG_CONFIG_HOME/certdesk`, else
 * `~/.config/certdesk`; `%APPDATA%\certdesk` on Windows), mode 0600.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Credentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CERTDESK_CONFIG_DIR) return env.CERTDESK_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'certdesk');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'certdesk');
}

export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'credentials.json');
}

export class MissingCredentialsError extends Error {}

export function loadCredentials(env: NodeJS.ProcessEnv = process.env): Credentials {
  const { CERTDESK_BASE_URL: baseUrl, CERTDESK_CLIENT_ID: clientId, CERTDESK_CLIENT_SECRET: clientSecret } = env;
  if (baseUrl && clientId && clientSecret) return { baseUrl, clientId, clientSecret };
  const file = credentialsFile(env);
  let stored: Partial<Credentials>;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<Credentials>;
  } catch {
    throw new MissingCredentialsError(`no credentials: set CERTDESK_BASE_URL, CERTDESK_CLIENT_ID and CERTDESK_CLIENT_SECRET, or run \`certdesk-client login\``);
  }
  const merged = { baseUrl: baseUrl || stored.baseUrl, clientId: clientId || stored.clientId, clientSecret: clientSecret || stored.clientSecret };
  if (!merged.baseUrl || !merged.clientId || !merged.clientSecret) throw new MissingCredentialsError(`incomplete credentials in ${file}: run \`certdesk-client login\` again`);
  return merged as Credentials;
}

/**
 * The service's base URL alone, for the public routes (the transparency log): `CERTDESK_BASE_URL`, else the
 * credentials file's; no client id or secret needed.
 */
export function loadBaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CERTDESK_BASE_URL) return env.CERTDESK_BASE_URL;
  try {
    const stored = JSON.parse(readFileSync(credentialsFile(env), 'utf8')) as Partial<Credentials>;
    if (stored.baseUrl) return stored.baseUrl;
  } catch {
    // no file: said below
  }
  throw new MissingCredentialsError('no base URL: set CERTDESK_BASE_URL, pass --base-url, or run `certdesk-client login`');
}

/** Writes the credentials file, readable by its owner only (0600, the directory 0700). */
export function saveCredentials(credentials: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = credentialsFile(env);
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an existing file keeps its mode on write
  return file;
}

