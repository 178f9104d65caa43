import type { Executor } from '../../storage/database.js';

export interface UserRecord {
  id: string;
  organization_id: string;
  email: string;
  email_key: string;
  username: string;
  is_admin: boolean;
  password_hash: string | null;
  created_at: Date;
}

export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRecord | undefined> {
  return db.selectFrom('users').selectAll().where('email_key', '=', emailKey(email)).executeTakeFirst();
}

export async function findUserById(db: Executor, id: string): Promise<UserRecord | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listUsers(db: Executor, organizationId: string): Promise<UserRecord[]> {
  return db.selectFrom('users').selectAll().where('organization_id', '=', organizationId).orderBy('email_key').execute();
}

export interface UserWrite {
  id: string;
  organization_id: string;
  email: string;
  username: string;
  is_admin: boolean;
  /** undefined keeps the stored hash. */
  password_hash?: string | null;
}

/** Inserts a user, or updates the one with the same e-mail in the same organization. */
export async function upsertUser(db: Executor, user: UserWrite): Promise<{ id: string; changed: boolean }> {
  const key = emailKey(user.email);
  const existing = await findUserByEmail(db, user.email);
  if (existing && existing.organization_id !== user.organization_id) {
    throw new Error(`user ${user.email} already belongs to another organization`);
  }
  if (!existing) {
    await db
      .insertInto('users')
      .values({
        id: user.id,
        organization_id: user.organization_id,
        email: user.email,
        email_key: key,
        username: user.username,
        is_admin: user.is_admin,
        password_hash: user.password_hash ?? null,
      })
      .execute();
    return { id: user.id, changed: true };
  }
  const passwordHash = user.password_hash === undefined ? existing.password_hash : user.password_hash;
  const same =
    existing.email === user.email &&
    existing.username === user.username &&
    existing.is_admin === user.is_admin &&
    existing.password_hash === passwordHash;
  if (!same) {
    await db
      .updateTable('users')
      .set({ email: user.email, username: user.username, is_admin: user.is_admin, password_hash: passwordHash })
      .where('id', '=', existing.id)
      .execute();
  }
  return { id: existing.id, changed: !same };
}

export async function setPasswordHash(db: Executor, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}
