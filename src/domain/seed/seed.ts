/**
 * `certdesk seed FILE`: loads organizations, users, projects, API clients, orders and objects from one JSON
 * document (docs/seed-format.md). The whole document is validated before anything is written, then written in
 * one transaction: a bad file changes nothing and the error names the offending path. Records are upserted
 * by their ids, so loading the same file twice changes nothing the second time.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import { DatabaseUnavailableError, describeFailure, isDatabaseUnavailable } from '../../storage/database-availability.js';
import type { Db, Executor } from '../../storage/database.js';
import { isKeyOfOrganization } from '../../storage/object-storage/object-key.js';
import type { ObjectStorage } from '../../storage/object-storage/object-storage.js';
import { ClientConflictError, upsertProvisionedClient } from '../api-clients/api-client-provisioning.repository.js';
import { SCOPES } from '../../contract/schemas.js';
import { checkOrderRules, toOrderRow, type OrderRow } from '../orders/order-document.js';
import { OrderOwnershipConflictError, upsertOrders } from '../orders/order.repository.js';
import { upsertOrganization } from '../organizations/organization.repository.js';
import { existingProjectIds } from '../projects/project.repository.js';
import { ProjectConflictError, replaceProjectMembers, upsertProject } from '../projects/project-writes.repository.js';
import { hashPassword, verifyPassword } from '../users/password.js';
import { emailKey, findUserByEmail, upsertUser } from '../users/user.repository.js';
import { compileInputValidator, formatProblem, joinPath, type InputProblem } from '../schema-errors.js';
import { SeedDocument, type SeedDocumentT } from './seed.schema.js';

export class SeedError extends Error {
  override name = 'SeedError';
  constructor(readonly problem: InputProblem) {
    super(formatProblem(problem));
  }
}

export interface SeedReport {
  organizations: number;
  users: number;
  projects: number;
  apiClients: number;
  orders: number;
  objects: number;
  /** Records inserted or changed by this load (0 when the same file is loaded again). */
  changed: number;
}

const validator = compileInputValidator<SeedDocumentT>(SeedDocument);

function fail(path: string, message: string): never {
  throw new SeedError({ path, message });
}

/** Schema validation plus the rules across records that need no database. */
export function validateSeedDocument(value: unknown): SeedDocumentT {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    fail('', `expected a JSON object {"organizations": [...], "objects": [...]} (see docs/seed-format.md), got ${got}`);
  }
  const problem = validator.check(value);
  if (problem) throw new SeedError(problem);
  const doc = value as SeedDocumentT;
  const orgIds = new Map<string, string>();
  const emails = new Map<string, string>();
  const projectIds = new Map<string, string>();
  const clientIds = new Map<string, string>();
  const orderIds = new Map<string, string>();
  const unique = (seen: Map<string, string>, key: string, path: string, what: string) => {
    const first = seen.get(key);
    if (first !== undefined) fail(path, `duplicates the ${what} of ${first}`);
    seen.set(key, path);
  };
  doc.organizations.forEach((org, i) => {
    const orgPath = joinPath('organizations', i);
    unique(orgIds, org.id.toLowerCase(), joinPath(orgPath, 'id'), 'id');
    (org.users ?? []).forEach((u, j) => unique(emails, emailKey(u.email), joinPath(joinPath(joinPath(orgPath, 'users'), j), 'email'), 'e-mail'));
    const projectNames = new Map<string, string>();
    const orgProjects = new Set<string>();
    (org.projects ?? []).forEach((p, j) => {
      const path = joinPath(joinPath(orgPath, 'projects'), j);
      unique(projectIds, p.id.toLowerCase(), joinPath(path, 'id'), 'id');
      unique(projectNames, p.name, joinPath(path, 'name'), 'name');
      orgProjects.add(p.id.toLowerCase());
      const memberEmails = new Map<string, string>();
      (p.members ?? []).forEach((m, k) => unique(memberEmails, emailKey(m.email), joinPath(joinPath(joinPath(path, 'members'), k), 'email'), 'e-mail'));
    });
    (org.api_clients ?? []).forEach((c, j) => unique(clientIds, c.client_id, joinPath(joinPath(joinPath(orgPath, 'api_clients'), j), 'client_id'), 'client_id'));
    (org.orders ?? []).forEach((o, j) => {
      const path = joinPath(joinPath(orgPath, 'orders'), j);
      unique(orderIds, o.order_id, joinPath(path, 'order_id'), 'order_id');
      const violation = checkOrderRules(o, org.id)[0];
      // Rule paths are already dotted paths below the order (`layers[0].key`).
      if (violation) fail(`${path}.${violation.path}`, violation.message);
    });
  });
  const objectKeys = new Map<string, string>();
  (doc.objects ?? []).forEach((o, i) => {
    const path = joinPath(joinPath('objects', i), 'key');
    unique(objectKeys, o.key, path, 'key');
    // Objects belong to an organization of this file: orgs/<its id>/...
    if (!doc.organizations.some((org) => isKeyOfOrganization(o.key, org.id))) {
      fail(path, 'must be under orgs/<organization id>/ of an organization in this file');
    }
    if (o.content_base64.length % 4 !== 0) fail(joinPath(joinPath('objects', i), 'content_base64'), 'must be base64 (length a multiple of 4)');
  });
  return doc;
}

interface PreparedUser {
  email: string;
  username: string;
  is_admin: boolean;
  password: string | undefined;
}

/** Writes one organization's records; throws SeedError naming the path of a record the database refuses. */
async function writeOrganization(trx: Executor, org: SeedDocumentT['organizations'][number], orgPath: string): Promise<number> {
  let changed = 0;
  if (
    await upsertOrganization(trx, {
      id: org.id.toLowerCase(),
      name: org.name,
      object_flag_threshold: org.detection_config?.object_flag_threshold ?? null,
      weighted_confidence_threshold: org.detection_config?.weighted_confidence_threshold ?? null,
    })
  )
    changed++;
  const organizationId = org.id.toLowerCase();

  const users: PreparedUser[] = (org.users ?? []).map((u) => ({ email: u.email, username: u.username, is_admin: u.is_admin ?? false, password: u.password }));
  for (const [j, u] of users.entries()) {
    const path = joinPath(joinPath(orgPath, 'users'), j);
    const existing = await findUserByEmail(trx, u.email);
    if (existing && existing.organization_id !== organizationId) fail(joinPath(path, 'email'), 'already belongs to a user of another organization');
    let passwordHash: string | null | undefined;
    if (u.password !== undefined) {
      // Keep a stored hash that already matches: re-seeding must change nothing.
      passwordHash = existing && (await verifyPassword(u.password, existing.password_hash)) ? existing.password_hash : await hashPassword(u.password);
    }
    const result = await upsertUser(trx, {
      id: existing?.id ?? randomUUID(),
      organization_id: organizationId,
      email: u.email,
      username: u.username,
      is_admin: u.is_admin,
      password_hash: passwordHash,
    });
    if (result.changed) changed++;
  }

  const userIdInOrg = async (email: string, path: string): Promise<string> => {
    const user = await findUserByEmail(trx, email);
    if (!user || user.organization_id !== organizationId) fail(path, `no user with this e-mail in organization ${organizationId}`);
    return user.id;
  };

  for (const [j, p] of (org.projects ?? []).entries()) {
    const path = joinPath(joinPath(orgPath, 'projects'), j);
    try {
      if (
        await upsertProject(trx, {
          id: p.id.toLowerCase(),
          organization_id: organizationId,
          name: p.name,
          date_created: p.date_created,
          object_flag_threshold: p.detection_config?.object_flag_threshold ?? null,
          weighted_confidence_threshold: p.detection_config?.weighted_confidence_threshold ?? null,
        })
      )
        changed++;
    } catch (err) {
      // Only our own conflicts name a field of the file; a database error is not the file's fault.
      if (err instanceof ProjectConflictError) fail(joinPath(path, err.field), err.message);
      throw err;
    }
    const members = [];
    for (const [k, m] of (p.members ?? []).entries()) {
      members.push({ userId: await userIdInOrg(m.email, joinPath(joinPath(joinPath(path, 'members'), k), 'email')), role: m.role });
    }
    await replaceProjectMembers(trx, p.id.toLowerCase(), members);
  }

  for (const [j, c] of (org.api_clients ?? []).entries()) {
    const path = joinPath(joinPath(orgPath, 'api_clients'), j);
    const userId = await userIdInOrg(c.user_email, joinPath(path, 'user_email'));
    try {
      if (
        await upsertProvisionedClient(trx, {
          client_id: c.client_id,
          client_secret: c.client_secret,
          organization_id: organizationId,
          user_id: userId,
          name: c.name ?? c.client_id,
          scopes: c.scopes ?? [SCOPES.read],
        })
      )
        changed++;
    } catch (err) {
      if (err instanceof ClientConflictError) fail(joinPath(path, 'client_id'), err.message);
      throw err;
    }
  }

  const orders = org.orders ?? [];
  if (orders.length > 0) {
    const referenced = [...new Set(orders.map((o) => o.project_id?.toLowerCase()).filter((id): id is string => Boolean(id)))];
    const known = await existingProjectIds(trx, organizationId, referenced);
    const rows: OrderRow[] = orders.map((o, j) => {
      if (o.project_id && !known.has(o.project_id.toLowerCase())) {
        fail(joinPath(joinPath(joinPath(orgPath, 'orders'), j), 'project_id'), `no project with this id in organization ${organizationId}`);
      }
      return toOrderRow(organizationId, o);
    });
    try {
      changed += await upsertOrders(trx, rows);
    } catch (err) {
      if (err instanceof OrderOwnershipConflictError) {
        const index = orders.findIndex((o) => o.order_id === err.orderIds[0]);
        fail(joinPath(joinPath(joinPath(orgPath, 'orders'), index), 'order_id'), 'already belongs to another organization');
      }
      throw err;
    }
  }
  return changed;
}

/** Writes objects, remembering what was there, so a failed load can put storage back as it was. */
async function writeObjects(storage: ObjectStorage, objects: NonNullable<SeedDocumentT['objects']>) {
  const undo: Array<() => Promise<void>> = [];
  let changed = 0;
  try {
    for (const o of objects) {
      const bytes = Buffer.from(o.content_base64, 'base64');
      const previous = await storage.get(o.key);
      if (previous) {
        const chunks: Buffer[] = [];
        for await (const chunk of previous.body) chunks.push(chunk as Buffer);
        const old = Buffer.concat(chunks);
        if (old.equals(bytes) && previous.contentType === o.content_type) continue;
        undo.push(() => storage.put(o.key, old, previous.contentType));
      } else {
        undo.push(() => storage.delete(o.key));
      }
      await storage.put(o.key, bytes, o.content_type);
      changed++;
    }
  } catch (err) {
    await rollbackObjects(undo);
    throw err;
  }
  return { changed, undo };
}

async function rollbackObjects(undo: Array<() => Promise<void>>): Promise<void> {
  for (const step of undo.reverse()) await step().catch(() => undefined);
}

export async function loadSeed(db: Db, storage: ObjectStorage, value: unknown): Promise<SeedReport> {
  const doc = validateSeedDocument(value);
  const objects = await writeObjects(storage, doc.objects ?? []);
  try {
    const changed = await db.transaction().execute(async (trx) => {
      let n = 0;
      for (const [i, org] of doc.organizations.entries()) n += await writeOrganization(trx, org, joinPath('organizations', i));
      return n;
    });
    const count = (f: (o: SeedDocumentT['organizations'][number]) => unknown[] | undefined) =>
      doc.organizations.reduce((sum, o) => sum + (f(o)?.length ?? 0), 0);
    return {
      organizations: doc.organizations.length,
      users: count((o) => o.users),
      projects: count((o) => o.projects),
      apiClients: count((o) => o.api_clients),
      orders: count((o) => o.orders),
      objects: doc.objects?.length ?? 0,
      changed: changed + objects.changed,
    };
  } catch (err) {
    await rollbackObjects(objects.undo);
    if (isDatabaseUnavailable(err)) {
      throw new DatabaseUnavailableError(`the database is unavailable, nothing was seeded: ${describeFailure(err)}`, { cause: err });
    }
    throw err;
  }
}

/** Reads and parses a seed file; problems with the file itself become SeedErrors too. */
export async function readSeedFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new SeedError({ path: '', message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SeedError({ path: '', message: `${file} is not valid JSON: ${(err as Error).message}` });
  }
}
