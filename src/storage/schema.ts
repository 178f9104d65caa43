/**
 * Row types of the tables in migrations/, for Kysely. Keep in step with the SQL migrations.
 */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  object_flag_threshold: number | null;
  weighted_confidence_threshold: number | null;
  created_at: DefaultedTimestamp;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  email: string;
  email_key: string;
  username: string;
  is_admin: Generated<boolean>;
  password_hash: string | null;
  created_at: DefaultedTimestamp;
}

export type ProjectRole = 'admin' | 'editor' | 'viewer';

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  date_created: DefaultedTimestamp;
  object_flag_threshold: number | null;
  weighted_confidence_threshold: number | null;
}

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  role: ProjectRole;
}

export interface ApiClientsTable {
  client_id: string;
  organization_id: string;
  user_id: string;
  name: Generated<string>;
  secret_hash: string;
  scopes: string[];
  created_at: DefaultedTimestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  /** jsonb: pass JSON.stringify(value) when writing. */
  public_jwk: ColumnType<Record<string, unknown>, string, string>;
  private_key: string;
  encrypted: boolean;
  created_at: DefaultedTimestamp;
  retired_at: Timestamp | null;
}

export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: DefaultedTimestamp;
}

export interface StoredLayer {
  layer_name: string;
  key: string;
}

export interface OrdersTable {
  order_id: string;
  organization_id: string;
  project_id: string | null;
  owner_key: string;
  order_state: string;
  creation_time: Timestamp;
  asset_preview_key: string | null;
  /** jsonb: pass JSON.stringify(value) when writing. */
  layers: ColumnType<StoredLayer[], string, string>;
  /** json text, returned verbatim by the type parsers. */
  doc: string;
  preview_doc: string;
  updated_at: DefaultedTimestamp;
  /** Original asset of an order created through the API (migration 0002); null for seeded orders. */
  asset_key: ColumnType<string | null, string | null | undefined, string | null>;
  asset_content_type: ColumnType<string | null, string | null | undefined, string | null>;
  asset_size: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface OrderCountersTable {
  organization_id: string;
  scope_key: string;
  project_id: string | null;
  owner_key: string | null;
  order_state: string;
  order_count: number;
}

export interface WebSessionsTable {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: DefaultedTimestamp;
  expires_at: Timestamp;
}

export interface UploadsTable {
  upload_id: string;
  organization_id: string;
  user_id: string;
  object_key: string;
  file_name: string;
  content_type: string;
  size: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  used_by_order: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OrderEventsTable {
  id: Generated<number>;
  order_id: string;
  organization_id: string;
  from_state: string | null;
  to_state: string;
  actor_kind: 'user' | 'system';
  actor_id: string;
  actor_label: string | null;
  reason: string | null;
  occurred_at: Timestamp;
}

export type JobState = 'queued' | 'running' | 'done' | 'failed';

export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** jsonb: pass JSON.stringify(value) when writing. */
  payload: ColumnType<Record<string, unknown>, string, string>;
  state: ColumnType<JobState, JobState | undefined, JobState>;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: ColumnType<number, number | undefined, number>;
  run_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_error: string | null;
  singleton_key: string | null;
  created_at: Timestamp;
  finished_at: Timestamp | null;
  /** Why a failed job failed (migration 0003); null unless state is 'failed'. */
  failure_kind: ColumnType<JobFailureKind | null, JobFailureKind | null | undefined, JobFailureKind | null>;
}

export type JobFailureKind = 'permanent' | 'transient';

/** The cause of an order's move to `Failed` by its analysis (migration 0003). */
export interface OrderAnalysisFailuresTable {
  order_id: string;
  failure_kind: JobFailureKind;
  job_id: number | null;
  failed_check: string;
  error: string;
  failed_at: ColumnType<Date, Date | undefined, Date>;
}

export interface IdempotencyKeysTable {
  scope: string;
  idempotency_key: string;
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  /** jsonb: pass JSON.stringify(value) when writing. */
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>;
  response_body: string | null;
  created_at: Timestamp;
  locked_until: Timestamp;
  expires_at: Timestamp;
}

/** Users with the deployment-wide reviewer capability (migration 0008). */
export interface ReviewersTable {
  user_id: string;
  granted_at: Timestamp;
}

/** The claim a reviewer holds on an order under review (migration 0008); one per order. */
export interface ReviewClaimsTable {
  order_id: string;
  claim_id: string;
  reviewer_id: string;
  claimed_at: Timestamp;
  expires_at: Timestamp;
}

export interface SchemaMigrationsTable {
  version: string;
  name: string;
  checksum: string;
  applied_at: DefaultedTimestamp;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  api_clients: ApiClientsTable;
  signing_keys: SigningKeysTable;
  server_secrets: ServerSecretsTable;
  orders: OrdersTable;
  order_counters: OrderCountersTable;
  web_sessions: WebSessionsTable;
  uploads: UploadsTable;
  order_events: OrderEventsTable;
  jobs: JobsTable;
  order_analysis_failures: OrderAnalysisFailuresTable;
  idempotency_keys: IdempotencyKeysTable;
  schema_migrations: SchemaMigrationsTable;
  reviewers: ReviewersTable;
  review_claims: ReviewClaimsTable;
}
