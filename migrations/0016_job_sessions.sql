-- The database session of the process that claimed a running job (docs/operations.md, "Running several
-- instances"): the application_name of that process's listening connection (storage/notifications.ts),
-- NULL when it had none (embedded PGlite, or the connection was down at the claim). When PostgreSQL no
-- longer lists that session in pg_stat_activity (the process was killed: the kernel closed its sockets),
-- the other instances end the job's lease at once instead of waiting for it to run out
-- (jobs/job.repository.ts, expireLeasesOfEndedSessions). Same file on PGlite and PostgreSQL.
ALTER TABLE jobs ADD COLUMN locked_session text;
