-- Honest retries: why a job failed for good, why an order's analysis failed (so an operator may re-analyse
-- it when the cause was transient), and an index for the queue gauges of /metrics. Same file on PGlite and
-- PostgreSQL.

-- 'permanent': an error no retry can change (bad bytes), the job failed at its first occurrence;
-- 'transient': network, storage, detection service, database, and every attempt was used.
ALTER TABLE jobs ADD COLUMN failure_kind text CHECK (failure_kind IN ('permanent', 'transient'));

-- The queue gauges (waiting, running, failed by kind) count every job that is not done; done jobs are
-- the bulk of the table and stay out of this index.
CREATE INDEX jobs_unfinished_kind_idx ON jobs (state, kind) WHERE state <> 'done';

-- The cause of an order's move to `Failed` by its analysis, written in the transaction of that move.
-- Kept as long as the order (finished jobs are deleted after a week); removed when an operator re-analyses.
CREATE TABLE order_analysis_failures (
  order_id text COLLATE "C" PRIMARY KEY REFERENCES orders (order_id) ON DELETE CASCADE,
  failure_kind text NOT NULL CHECK (failure_kind IN ('permanent', 'transient')),
  job_id bigint,
  -- The check that kept failing (its entry in analysis_list is `analysis_passed: false`).
  failed_check text NOT NULL,
  error text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
