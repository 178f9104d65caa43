import type { Executor } from '../../storage/database.js';

export interface OrganizationRecord {
  id: string;
  name: string;
  object_flag_threshold: number | null;
  weighted_confidence_threshold: number | null;
  created_at: Date;
}

export interface OrganizationWrite {
  id: string;
  name: string;
  object_flag_threshold?: number | null;
  weighted_confidence_threshold?: number | null;
}

/** Inserts or updates an organization by id; returns true when a row was inserted or changed. */
export async function upsertOrganization(db: Executor, org: OrganizationWrite): Promise<boolean> {
  const values = {
    id: org.id,
    name: org.name,
    object_flag_threshold: org.object_flag_threshold ?? null,
    weighted_confidence_threshold: org.weighted_confidence_threshold ?? null,
  };
  const result = await db
    .insertInto('organizations')
    .values(values)
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({
          name: values.name,
          object_flag_threshold: values.object_flag_threshold,
          weighted_confidence_threshold: values.weighted_confidence_threshold,
        })
        .where((eb) =>
          eb.or([
            eb('organizations.name', 'is distinct from', values.name),
            eb('organizations.object_flag_threshold', 'is distinct from', values.object_flag_threshold),
            eb('organizations.weighted_confidence_threshold', 'is distinct from', values.weighted_confidence_threshold),
          ]),
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findOrganization(db: Executor, id: string): Promise<OrganizationRecord | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listOrganizations(db: Executor): Promise<OrganizationRecord[]> {
  return db.selectFrom('organizations').selectAll().orderBy('name').orderBy('id').execute();
}
