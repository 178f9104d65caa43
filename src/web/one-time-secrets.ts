/**
 * Post/redirect/get for a new secret (an API credential, a webhook endpoint's signing secret): the POST
 * puts what the "created" page shows into this store and redirects to a URL naming a random ticket; the
 * GET takes it out. So the secret is shown exactly once, a reload neither re-posts the form (no second
 * credential) nor shows the secret again, and the secret never appears in a URL. Tickets are bound to the
 * session that created them and to their purpose, and expire quickly.
 *
 * Instances behind a load balancer share nothing in memory, and the redirect may reach another instance
 * than the POST: tickets live in the database (table `one_time_secrets`, migrations/0010). What is stored
 * never lets a reader of the database see the secret: the row is found by the SHA-256 of the ticket, and
 * the value is AES-256-GCM encrypted under a key derived (HKDF) from the ticket, which only the redirect
 * URL carries; the owner and purpose are the authenticated data. Taking a ticket deletes its row in the
 * same statement (of two concurrent takes one wins); expired rows are deleted by the next `put`.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Executor } from '../storage/database.js';
import { insertOneTimeSecret, takeOneTimeSecret } from '../storage/one-time-secrets.repository.js';

export interface OneTimeSecretsOptions {
  /** The shared database: a ticket put on one instance is taken on any. */
  db: Executor;
  /** What the tickets are for (e.g. `credential`): a ticket is taken only through the store of its purpose. */
  purpose: string;
  /** How long an unviewed ticket lives. Default 5 minutes. */
  ttlMs?: number;
  /** Injected clock (tests). */
  now?: () => number;
}

const TICKET = /^[A-Za-z0-9_-]{32}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

function ticketHash(ticket: string): string {
  return createHash('sha256').update(`certdesk one-time secret ${ticket}`).digest('hex');
}

function keyOf(ticket: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(ticket, 'base64url'), Buffer.alloc(0), `certdesk one-time secret key ${purpose}`, 32));
}

export class OneTimeSecrets<T> {
  private readonly db: Executor;
  private readonly purpose: string;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: OneTimeSecretsOptions) {
    this.db = options.db;
    this.purpose = options.purpose;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Stores `value` (JSON) for `owner` (a session) and returns the ticket that takes it out once. */
  async put(owner: string, value: T): Promise<string> {
    const ticket = randomBytes(24).toString('base64url');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keyOf(ticket, this.purpose), iv);
    cipher.setAAD(Buffer.from(`${this.purpose}\n${owner}`));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    const now = this.now();
    await insertOneTimeSecret(this.db, { ticketHash: ticketHash(ticket), purpose: this.purpose, owner, sealed, expiresAt: new Date(now + this.ttlMs) }, new Date(now));
    return ticket;
  }

  /** The value, once, for its owner before it expires; afterwards (or for anyone else) undefined. */
  async take(owner: string, ticket: string): Promise<T | undefined> {
    if (!TICKET.test(ticket)) return undefined;
    const row = await takeOneTimeSecret(this.db, ticketHash(ticket), this.purpose, owner);
    if (!row || row.expiresAt.getTime() <= this.now()) return undefined;
    const sealed = Buffer.from(row.sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(ticket, this.purpose), sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(`${this.purpose}\n${owner}`));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as T;
  }
}
