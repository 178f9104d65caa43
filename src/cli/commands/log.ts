/**
 * `certdesk log key` prints the transparency log's verifier key string (`GET /log/key`), making the key
 * first when the log has none; `certdesk log status` says how far the log is sequenced and published
 * (docs/transparency-log.md).
 */
import type { Command } from 'commander';
import { ensureLogSigner, logOrigin } from '../../domain/transparency-log/log-key.js';
import { verifierKey } from '../../domain/transparency-log/signed-note.js';
import { countUnpublishedEntries, readLogState } from '../../domain/transparency-log/transparency-log.repository.js';
import { configFrom, output, withDatabase } from '../context.js';

export function registerLog(program: Command): void {
  const log = program.command('log').description('the public transparency log of certificates: its key and state');

  log
    .command('key')
    .description("print the log's verifier key (<name>+<key id>+<key>, C2SP signed-note Ed25519), as GET /log/key serves it")
    .action(async (_opts: unknown, command: Command) => {
      const config = configFrom(command);
      const key = await withDatabase(config, async (handle) => {
        const signer = await ensureLogSigner(handle.db, { masterKey: config.masterKey, origin: logOrigin(config.publicBaseUrl) });
        return verifierKey(signer.name, signer.publicKey);
      });
      process.stdout.write(`${key}\n`);
    });

  log
    .command('status')
    .description('how many entries the log has, how many object storage has, and how many wait')
    .option('--json', 'print the result as JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const config = configFrom(command);
      const status = await withDatabase(config, async (handle) => {
        const state = await readLogState(handle.db);
        return { tree_size: state.tree_size, published_size: state.published_size, unpublished_entries: await countUnpublishedEntries(handle.db), sequencer: state.sequencer, lease_live: state.lease_live };
      });
      output(Boolean(opts.json), status, () =>
        [
          `sequenced    ${status.tree_size} entries`,
          `published    ${status.published_size ?? 'nothing yet'}`,
          `waiting      ${status.unpublished_entries} entries not yet in a published checkpoint`,
          `sequencer    ${status.sequencer ?? 'none yet'}${status.lease_live ? '' : ' (lease ended)'}`,
        ].join('\n'),
      );
    });
}
