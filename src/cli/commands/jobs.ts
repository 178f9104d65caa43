/**
 * `certdesk jobs list [--failed] [--json]` and `certdesk jobs retry ID`: the background job queue as an
 * operator sees it (what waits, runs and failed, and why), and a failed job put back in the queue.
 */
import type { Command } from 'commander';
import { findJobs, requeueFailedJob, type JobStatusRow } from '../../jobs/job.repository.js';
import { configFrom, output, UsageError, withDatabase } from '../context.js';

const view = (j: JobStatusRow) => ({
  id: Number(j.id),
  kind: j.kind,
  state: j.state,
  attempts: j.attempts,
  max_attempts: j.max_attempts,
  run_at: j.run_at.toISOString(),
  failure_kind: j.failure_kind,
  last_error: j.last_error,
  payload: j.payload,
});

type JobView = ReturnType<typeof view>;

function formatJob(j: JobView): string {
  const when = j.state === 'queued' ? ` due ${j.run_at}` : '';
  const why = j.last_error ? `  ${j.failure_kind ? `[${j.failure_kind}] ` : ''}${j.last_error.split('\n')[0]}` : '';
  return `${j.id}  ${j.kind}  ${j.state}  attempt ${j.attempts}/${j.max_attempts}${when}  ${JSON.stringify(j.payload)}${why}`;
}

export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description('see and retry background jobs (analysis, cleanup)');
  jobs
    .command('list')
    .description('list the jobs that are queued, running or failed (finished jobs are kept a week)')
    .option('--failed', 'only the failed jobs')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { failed?: boolean; json?: boolean }, command: Command) => {
      const rows = await withDatabase(configFrom(command), (h) => findJobs(h.db, { states: opts.failed ? ['failed'] : ['queued', 'running', 'failed'] }));
      const list = rows.map(view);
      output(Boolean(opts.json), list, () => (list.length ? list.map(formatJob).join('\n') : opts.failed ? 'no failed jobs' : 'no jobs queued, running or failed'));
    });
  jobs
    .command('retry')
    .description('put a failed job back in the queue, due now, with its attempts counted afresh')
    .argument('<id>', 'job id (see `certdesk jobs list --failed`)')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nAn analysis whose order already moved to Failed is re-run with `certdesk orders reanalyse ORDER_ID`.')
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      if (!/^\d{1,15}$/.test(id)) throw new UsageError(`job id must be a number, got "${id}"`);
      const jobId = Number(id);
      const retried = await withDatabase(configFrom(command), (h) => requeueFailedJob(h.db, jobId));
      if (!retried) throw new Error(`job ${jobId} does not exist or has not failed: only a failed job can be retried`);
      output(Boolean(opts.json), { id: jobId, state: 'queued' }, () => `job ${jobId} queued again`);
    });
  jobs.commands.forEach((c) => c.exitOverride());
}
