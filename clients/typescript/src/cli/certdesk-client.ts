#!/usr/bin/env node
/**
 * `certdesk-client`: the command-line client of the certdesk API, built on @certdesk/client.
 * Data on stdout (a table on a terminal, JSON/NDJSON/CSV otherwise), progress and failures on stderr
 * (one line per failure), exit codes in exit-codes.ts.
 */
import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob, readFileSync } from 'node:fs';
import { access, constants, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { Certdesk } from '../client.js';
import { verifyCertificate } from '../certificate.js';
import { ConflictError } from '../errors.js';
import { LogResource } from '../log-resource.js';
import { describeCheckpoint, type Checkpoint } from '../tlog/checkpoint.js';
import type { CertificateLogStatus } from '../tlog/certificate-log.js';
import { toBase64 } from '../tlog/bytes.js';
import type { Order, OrderPreview, WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../types.js';
import { loadBaseUrl, loadCredentials, saveCredentials } from './config.js';
import { CliFailure, EXIT, exitCodeOf, failureLine } from './exit-codes.js';
import { chooseFormat, JsonTextWriter, printObject, RowWriter, type Column, type Format } from './output.js';
import { readSecret } from './secret.js';
import { verifyFile } from './verify-file.js';

const FINAL_STATES = new Set(['Human Certified', 'Reviewed', 'Failed', 'Unsupported File']);

interface FormatFlags {
  json?: boolean;
  ndjson?: boolean;
  csv?: boolean;
}

function clientFromEnvironment(): Certdesk {
  const credentials = loadCredentials();
  return new Certdesk({
    ...credentials,
    ...(process.env.CERTDESK_TIMEOUT_MS ? { timeoutMs: Number(process.env.CERTDESK_TIMEOUT_MS) } : {}),
    onRetry: ({ attempt, delayMs, reason }) => progress(`retry ${attempt} in ${delayMs} ms: ${reason}`),
  });
}

const stderrTty = Boolean(process.stderr.isTTY);
let progressShown = false;
/** Progress on stderr, only on a terminal (one line, rewritten), so machine output stays clean. */
function progress(message: string): void {
  if (!stderrTty) return;
  process.stderr.write(`\r\x1b[2K${message}`);
  progressShown = true;
}
/** A one-line note on stderr (like `login`'s): what a command did when it prints no data. */
function progressLine(message: string): void {
  endProgress();
  process.stderr.write(`${message}\n`);
}
function endProgress(): void {
  if (progressShown) process.stderr.write('\n');
  progressShown = false;
}

function checkpointJson(checkpoint: Checkpoint): Record<string, unknown> {
  return { origin: checkpoint.origin, size: checkpoint.size, root_hash: toBase64(checkpoint.rootHash), checkpoint: checkpoint.note };
}

/** The log check's outcome in words (the index is 0-based, as in the tiles). */
function logSentence(status: CertificateLogStatus): string {
  if (status.status === 'pending') return `not yet in the transparency log (issued ${Math.round(status.issuedAgoMs / 1000)} s ago; it is sequenced within seconds)`;
  const revoked = status.revoked ? `, revoked at entry ${status.revoked.index}` : status.revocationPending ? ', its revocation not yet logged' : '';
  return `in the transparency log ${status.origin} at entry ${status.issued.index} (0-based), proven against its signed checkpoint (tree size ${status.issued.checkpoint.size})${revoked}`;
}

function formatOf(flags: FormatFlags, machineDefault: Format): Format {
  return chooseFormat(flags, Boolean(process.stdout.isTTY), machineDefault);
}

function withFormats(command: Command, machine = true): Command {
  command.addOption(new Option('--json', 'JSON').conflicts(['ndjson', 'csv']));
  if (machine) {
    command.addOption(new Option('--ndjson', 'one JSON object per line').conflicts(['json', 'csv']));
    command.addOption(new Option('--csv', 'CSV with a header line').conflicts(['json', 'ndjson']));
  }
  return command;
}

const ORDER_COLUMNS: Column<Order | OrderPreview>[] = [
  { header: 'order_id', value: (o) => o.order_id },
  { header: 'order_state', value: (o) => o.order_state },
  { header: 'creation_time', value: (o) => o.creation_time },
  { header: 'order_title', value: (o) => o.order_title },
  { header: 'project', value: (o) => ('project' in o ? o.project?.name : undefined) },
  { header: 'asset_name', value: (o) => ('asset_name' in o ? o.asset_name : undefined) },
  { header: 'email', value: (o) => ('email' in o ? o.email : undefined) },
  { header: 'tags', value: (o) => o.tags },
];

const WEBHOOK_EVENTS: WebhookEventType[] = ['order.created', 'order.state_changed', 'certificate.issued', 'certificate.revoked'];

const ENDPOINT_COLUMNS: Column<WebhookEndpoint>[] = [
  { header: 'id', value: (e) => e.id },
  { header: 'status', value: (e) => e.status },
  { header: 'url', value: (e) => e.url },
  { header: 'events', value: (e) => e.events },
  { header: 'description', value: (e) => e.description },
  { header: 'disabled_reason', value: (e) => e.disabled_reason },
  { header: 'created_at', value: (e) => e.created_at },
];

const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = [
  { header: 'id', value: (d) => d.id },
  { header: 'event_id', value: (d) => d.event_id },
  { header: 'event_type', value: (d) => d.event_type },
  { header: 'status', value: (d) => d.status },
  { header: 'attempts', value: (d) => d.attempts },
  { header: 'last_attempt_at', value: (d) => d.last_attempt_at },
  { header: 'next_attempt_at', value: (d) => d.next_attempt_at },
  { header: 'response_status', value: (d) => d.response_status },
  { header: 'latency_ms', value: (d) => d.latency_ms },
];

/** A file argument that cannot be read is a usage error, found before any request is made. */
async function assertReadable(files: readonly string[]): Promise<void> {
  for (const file of files) {
    try {
      await access(file, constants.R_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? String(error));
      throw new CliFailure(`cannot read ${file}: ${why}`, EXIT.usage);
    }
  }
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function waitForOrder(client: Certdesk, orderId: string, intervalMs: number): Promise<Order> {
  for (;;) {
    const order = await client.orders.get(orderId);
    progress(`${orderId}: ${order.order_state}`);
    if (FINAL_STATES.has(order.order_state) || order.order_state === 'Action Required') return order;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** How long `certificate --download` waits for a credentialed file still being made (the service makes it within 60 s). */
const DOWNLOAD_WAIT_MS = 120_000;

/**
 * Downloads the order's credentialed file to `file` (written beside it, then renamed: never a half file
 * under that name), waiting while the service answers 409 with Retry-After (the file is being made).
 */
async function downloadCertificateFile(client: Certdesk, orderId: string, file: string): Promise<number> {
  const deadline = Date.now() + DOWNLOAD_WAIT_MS;
  for (;;) {
    try {
      const blob = await client.orders.certificateFile(orderId);
      const partial = `${file}.part`;
      try {
        await writeFile(partial, new Uint8Array(await blob.arrayBuffer()));
        await rename(partial, file);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return blob.size;
    } catch (error) {
      // 409 without Retry-After: the format cannot carry Content Credentials; with it: not made yet.
      const wait = error instanceof ConflictError ? error.retryAfterMs : null;
      if (wait === null || Date.now() + wait > deadline) throw error;
      progress(`${orderId}: the credentialed file is being made, asking again in ${Math.ceil(wait / 1000)} s`);
      await new Promise((r) => setTimeout(r, Math.max(wait, 250)));
    }
  }
}

/** What an order that `--wait` left undecided or refused means, and what to do next (one clause each). */
const UNCERTIFIED_OUTCOMES: Readonly<Record<string, (id: string) => string>> = {
  'Unsupported File': (id) => `ended Unsupported File: the file is not an image the analysis reads (PNG, JPEG, WebP, TIFF or PSD); create a new order with such a file (why: certdesk-client orders history ${id})`,
  Failed: (id) => `ended Failed: the analysis failed for good or a reviewer refused it; see why with certdesk-client orders history ${id}`,
  'Action Required': (id) => `is Action Required: the analysis flagged regions that need your answer; see them with certdesk-client orders get ${id} and respond (POST /v1/orders/${id}/responses), then wait again`,
};

/** The clause for an order `--wait` ended on, or null when it is certified or reviewed (success). */
function uncertifiedOutcome(order: Order): string | null {
  if (order.order_state === 'Human Certified' || order.order_state === 'Reviewed') return null;
  const explain = UNCERTIFIED_OUTCOMES[order.order_state];
  return `order ${order.order_id} ${explain ? explain(order.order_id) : `ended ${order.order_state}; see certdesk-client orders history ${order.order_id}`}`;
}

/**
 * A command that must name its subcommand (`orders`, `webhooks`, the program itself): without one, or with
 * one that does not exist, it fails with one line (commander would print its whole help on stderr, or a
 * suggestion on a second line).
 */
function requireSubcommand(group: Command): Command {
  return group
    .usage('[options] [command]')
    .argument('[command]')
    .allowExcessArguments()
    // An action would hide commander's implicit `help [command]`: keep it.
    .helpCommand(true)
    .action((name: string | undefined) => {
      const path = group.parent ? `certdesk-client ${group.name()}` : 'certdesk-client';
      const known = group.commands.filter((c) => c.name() !== 'help').map((c) => c.name()).join(', ');
      const what = name === undefined ? group.parent ? `${group.name()} needs a command` : 'a command is needed' : `unknown command '${name}'`;
      throw new CliFailure(`${what}: ${known} (see ${path} --help)`, EXIT.usage);
    });
}

export function program(): Command {
  const cli = new Command('certdesk-client')
    .description('Command-line client of the certdesk API. Credentials: CERTDESK_BASE_URL, CERTDESK_CLIENT_ID, CERTDESK_CLIENT_SECRET, or `login`.')
    .showSuggestionAfterError()
    .exitOverride()
    // A usage error is one line like every failure: commander's "(Did you mean orders?)" joins the line.
    .configureOutput({ outputError: (s, write) => write(`certdesk-client: ${s.trim().replace(/\s*\n\s*/g, ' ')}\n`) });
  requireSubcommand(cli);

  cli
    .command('login')
    .description('check the credentials and store them in the config directory (mode 0600); without --client-secret the secret is read from stdin')
    .requiredOption('--base-url <url>', 'the API base URL')
    .requiredOption('--client-id <id>', 'the API client id')
    .option('--client-secret <secret>', 'the client secret (default: read from standard input, without echo)')
    .action(async (opts: { baseUrl: string; clientId: string; clientSecret?: string }) => {
      const clientSecret = opts.clientSecret ?? (await readSecret('Client secret: '));
      if (!clientSecret) throw new CliFailure('no client secret given', EXIT.usage);
      const credentials = { baseUrl: opts.baseUrl, clientId: opts.clientId, clientSecret };
      await new Certdesk(credentials).accessToken(); // refuses wrong credentials before storing them
      const file = saveCredentials(credentials);
      process.stderr.write(`credentials stored in ${file}\n`);
    });

  const orders = requireSubcommand(cli.command('orders').description('list, show, create and follow orders'));
  withFormats(
    orders
      .command('list')
      .description('orders of a scope, newest first (first page; --all: every page)')
      .option('--project <id>', '`All Projects`, `Personal Certificates` or a project id', 'All Projects')
      .option('--all', 'stream every page (progress on stderr)')
      .option('--limit <n>', 'orders per page (1..1000)', (v) => Number.parseInt(v, 10))
      .option('--preview', 'OrderPreview items (fewer fields)'),
  ).action(async (opts: FormatFlags & { project: string; all?: boolean; limit?: number; preview?: boolean }) => {
    const client = clientFromEnvironment();
    const format = formatOf(opts, 'ndjson');
    const writer = new RowWriter<Order | OrderPreview>(process.stdout, format, ORDER_COLUMNS, process.stdout.columns ?? 120);
    const rawWriter = new JsonTextWriter(process.stdout, format === 'json' ? 'json' : 'ndjson');
    // --all is an export: the next page is fetched while this one is written.
    const list = client.orders.list({ projectId: opts.project, ...(opts.preview ? { preview: true } : {}), ...(opts.limit ? { limit: opts.limit } : {}), prefetch: Boolean(opts.all) });
    let count = 0;
    let pages = 0;
    // NDJSON and JSON write each order as the server sent it (no parse, no serialization per order).
    const raw = format === 'ndjson' || format === 'json';
    for await (const page of raw ? list.jsonPages() : list.pages()) {
      pages++;
      if ('items' in page) {
        await rawWriter.rows(page.items);
        count += page.items.length;
      } else {
        const items = (opts.preview ? page.order_previews : page.orders) ?? [];
        await writer.rows(items);
        count += items.length;
      }
      if (opts.all) progress(`${count} of ${page.order_stats.total_orders} orders (${pages} pages)`);
      if (!opts.all) break;
    }
    endProgress();
    await (raw ? rawWriter : writer).end();
  });

  withFormats(orders.command('get').argument('<id>', 'order id').description('one order'), false).action(async (id: string, opts: FormatFlags) => {
    await printObject(process.stdout, formatOf(opts, 'json'), await clientFromEnvironment().orders.get(id));
  });

  withFormats(orders.command('history').argument('<id>', 'order id').description('the order\'s audit history, oldest first')).action(async (id: string, opts: FormatFlags) => {
    const { events } = await clientFromEnvironment().orders.history(id);
    const writer = new RowWriter(process.stdout, formatOf(opts, 'ndjson'), [
      { header: 'at', value: (e: (typeof events)[number]) => e.at },
      { header: 'type', value: (e) => e.type },
      { header: 'actor', value: (e) => e.actor },
      { header: 'from_state', value: (e) => e.from_state },
      { header: 'to_state', value: (e) => e.to_state },
      { header: 'note', value: (e) => e.note },
    ], process.stdout.columns ?? 120);
    for (const event of events) await writer.row(event);
    await writer.end();
  });

  withFormats(
    orders
      .command('create')
      .argument('<file...>', 'asset files, one order each')
      .option('--project <id>', 'project id (default: a personal order)')
      .option('--title <title>', 'order title (default: the file name)')
      .option('--wait', 'wait until each order is decided (exit 10 when not certified or reviewed)')
      .description('upload files and create one order per file'),
    false,
  ).action(async (files: string[], opts: FormatFlags & { project?: string; title?: string; wait?: boolean }) => {
    const client = clientFromEnvironment();
    const format = formatOf(opts, 'json');
    await assertReadable(files);
    const uncertified: string[] = [];
    for (const [i, file] of files.entries()) {
      progress(`[${i + 1}/${files.length}] uploading ${file}`);
      const blob = await openAsBlob(file);
      let order = await client.orders.create({ file: blob, fileName: path.basename(file), projectId: opts.project ?? null, orderTitle: opts.title ?? path.basename(file) });
      progress(`[${i + 1}/${files.length}] created ${order.order_id}`);
      if (opts.wait) {
        order = await waitForOrder(client, order.order_id, 2000);
        const outcome = uncertifiedOutcome(order);
        if (outcome) uncertified.push(files.length > 1 ? `${file}: ${outcome}` : outcome);
      }
      endProgress();
      await printObject(process.stdout, format === 'table' ? 'table' : 'json', order);
    }
    // Every file is tried and printed; the one failure line names each order that was not certified.
    if (uncertified.length > 0) {
      const count = files.length > 1 ? `${uncertified.length} of ${files.length} orders not certified: ` : '';
      throw new CliFailure(`${count}${uncertified.join('; ')}`, EXIT.orderNotCertified);
    }
  });

  withFormats(orders.command('wait').argument('<id>', 'order id').description('wait until the order is decided (exit 10 when not certified or reviewed)'), false).action(async (id: string, opts: FormatFlags) => {
    const order = await waitForOrder(clientFromEnvironment(), id, 2000);
    endProgress();
    await printObject(process.stdout, formatOf(opts, 'json'), order);
    const outcome = uncertifiedOutcome(order);
    if (outcome) throw new CliFailure(outcome, EXIT.orderNotCertified);
  });

  withFormats(
    cli
      .command('certificate')
      .argument('<order_id>', 'order id')
      .option('--verify <file>', 'also check the signature offline against the JWKS, that FILE is the certified file, and that the certificate is in the transparency log (exit 9 otherwise)')
      .option('--log-key <key>', "the transparency log's verifier key (default: the one the service publishes at /log/key)")
      .option('--download <path>', 'also save the file with the certificate embedded as Content Credentials (C2PA) to PATH (waits while it is being made)')
      .description('the certificate of an order'),
    false,
  ).action(async (orderId: string, opts: FormatFlags & { verify?: string; logKey?: string; download?: string }) => {
    const client = clientFromEnvironment();
    if (opts.verify) await assertReadable([opts.verify]);
    const certificate = await client.orders.certificate(orderId);
    await printObject(process.stdout, formatOf(opts, 'json'), certificate);
    if (opts.download) {
      const size = await downloadCertificateFile(client, orderId, opts.download);
      progressLine(`saved the credentialed file to ${opts.download} (${size} bytes)`);
    }
    if (opts.verify) {
      const jwks = await client.certificates.jwks();
      try {
        await verifyCertificate(certificate.jws, jwks as Parameters<typeof verifyCertificate>[1]);
      } catch (error) {
        throw new CliFailure(`the certificate's signature does not verify: ${(error as Error).message}`, EXIT.verification);
      }
      const digest = await sha256OfFile(opts.verify);
      if (digest !== certificate.asset_sha256) throw new CliFailure(`${opts.verify} is not the certified file (sha256 ${digest}, certified ${certificate.asset_sha256})`, EXIT.verification);
      // The log check: the key from /log/key unless given, the proof from the certificate itself.
      const { transparencyLog } = await verifyCertificate(certificate.jws, jwks as Parameters<typeof verifyCertificate>[1], {
        baseUrl: client.options.baseUrl,
        transparencyLog: certificate.transparency_log,
        revokedAt: certificate.revoked_at ?? null,
        fetch: client.options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
        ...(opts.logKey ? { logKey: opts.logKey } : {}),
      });
      if (certificate.status !== 'valid') throw new CliFailure(`the certificate was revoked: ${certificate.revocation_reason ?? ''}`, EXIT.verification);
      process.stderr.write(`verified: signature valid, ${opts.verify} is the certified file; ${logSentence(transparencyLog!)}\n`);
    }
  });

  withFormats(
    cli
      .command('verify')
      .argument('<file>', 'an image file')
      .description("read a file's Content Credentials (C2PA) and check its certdesk certificate: intact file, certdesk's signature, the certificate's JWS, its transparency-log proof and its live status (exit 0 only when all hold, 9 otherwise)")
      .option('--base-url <url>', 'the certdesk API base URL (default: CERTDESK_BASE_URL or the one `login` stored; no credentials needed)')
      .option('--trust-anchors <pem>', "a PEM file of C2PA trust anchors to use instead of the service's /.well-known/c2pa-trust-anchors.pem")
      .option('--log-key <key>', "the transparency log's verifier key (default: the one the service publishes at /log/key)"),
    false,
  ).action(async (file: string, opts: FormatFlags & { baseUrl?: string; trustAnchors?: string; logKey?: string }) => {
    const { report, failure } = await verifyFile(file, {
      baseUrl: opts.baseUrl ?? loadBaseUrl(),
      ...(opts.logKey ? { logKey: opts.logKey } : {}),
      ...(opts.trustAnchors ? { trustAnchorsPem: await readFile(opts.trustAnchors, 'utf8') } : {}),
      ...(process.env.CERTDESK_TIMEOUT_MS ? { timeoutMs: Number(process.env.CERTDESK_TIMEOUT_MS) } : {}),
      onRetry: ({ attempt, delayMs, reason }) => progress(`retry ${attempt} in ${delayMs} ms: ${reason}`),
    });
    endProgress();
    await printObject(process.stdout, formatOf(opts, 'json'), report);
    if (failure) throw new CliFailure(failure, EXIT.verification);
    progressLine(`verified: ${file} is intact, certified by ${report.organization ?? 'unknown'} (certificate ${report.certificate_id}, valid)`);
  });

  const log = requireSubcommand(cli.command('log')).description("the service's public transparency log, verified here (no credentials needed)");
  const logOptions = (command: Command): Command =>
    command
      .option('--log-key <key>', "the log's verifier key (default: the one the service publishes at /log/key; pin it for real monitoring)")
      .option('--base-url <url>', 'the service (default: CERTDESK_BASE_URL or the login)');
  const logOf = (opts: { baseUrl?: string }): LogResource => new LogResource(opts.baseUrl ?? loadBaseUrl());

  log
    .command('key')
    .description("the log's verifier key as the service publishes it")
    .option('--base-url <url>', 'the service (default: CERTDESK_BASE_URL or the login)')
    .action(async (opts: { baseUrl?: string }) => {
    process.stdout.write(`${await logOf(opts).key()}\n`);
  });

  withFormats(
    logOptions(log.command('checkpoint').description('the current checkpoint, its signature verified (the signed note as served: keep it for `log consistency`)')),
    false,
  ).action(async (opts: FormatFlags & { logKey?: string; baseUrl?: string }) => {
    const checkpoint = await logOf(opts).checkpoint(opts.logKey);
    if (opts.json) await printObject(process.stdout, 'json', checkpointJson(checkpoint));
    else process.stdout.write(checkpoint.note);
    progressLine(`verified: ${describeCheckpoint(checkpoint)}`);
  });

  withFormats(
    logOptions(
      log
        .command('consistency')
        .argument('<old_checkpoint_file>', 'a checkpoint kept earlier (the signed note, as `log checkpoint` prints it)')
        .description('prove the log grew from OLD_CHECKPOINT_FILE without rewriting anything; prints the current checkpoint (exit 9 on any inconsistency)'),
    ),
    false,
  ).action(async (file: string, opts: FormatFlags & { logKey?: string; baseUrl?: string }) => {
    let old: string;
    try {
      old = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliFailure(`cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
    }
    const result = await logOf(opts).consistency(old, opts.logKey);
    if (opts.json) await printObject(process.stdout, 'json', { old_size: result.old.size, consistency_proof: result.proof, ...checkpointJson(result.current) });
    else process.stdout.write(result.current.note);
    progressLine(`consistent: the log grew from ${result.old.size} to ${result.current.size} entries without rewriting any`);
  });

  withFormats(
    logOptions(log.command('audit').description('fetch every entry bundle and tile, recompute the whole tree and compare it with the signed checkpoint (exit 9 on any disagreement)')),
    false,
  ).action(async (opts: FormatFlags & { logKey?: string; baseUrl?: string }) => {
    const report = await logOf(opts).audit(opts.logKey, { onEntry: (index) => (index % 1024 === 0 ? progress(`audited ${index} entries`) : undefined) });
    const json = { entries: report.entries, issued: report.issued, revoked: report.revoked, tiles_fetched: report.tilesFetched, bundles_fetched: report.bundlesFetched, ...checkpointJson(report.checkpoint) };
    if (opts.json) await printObject(process.stdout, 'json', json);
    else process.stdout.write(`audited ${report.entries} entries (${report.issued} issued, ${report.revoked} revoked) against ${describeCheckpoint(report.checkpoint)}\n`);
    endProgress();
  });

  withFormats(requireSubcommand(cli.command('projects').description('projects')).command('list').description('the projects the client sees')).action(async (opts: FormatFlags) => {
    const projects = await clientFromEnvironment().projects.list();
    const writer = new RowWriter(process.stdout, formatOf(opts, 'ndjson'), [
      { header: 'id', value: (p: (typeof projects)[number]) => p.id },
      { header: 'name', value: (p) => p.name },
      { header: 'date_created', value: (p) => p.date_created },
      { header: 'members', value: (p) => p.members.length },
    ], process.stdout.columns ?? 120);
    for (const project of projects) await writer.row(project);
    await writer.end();
  });

  withFormats(cli.command('members').argument('<org_id>', 'organization id').description('members of an organization'), false).action(async (orgId: string, opts: FormatFlags) => {
    await printObject(process.stdout, formatOf(opts, 'json'), await clientFromEnvironment().organizations.members(orgId));
  });

  const webhooks = requireSubcommand(cli.command('webhooks').description("the organization's webhook endpoints and their deliveries (organization administrators)"));
  const collect = (value: string, previous: string[] = []): string[] => [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];

  withFormats(webhooks.command('list').description('the endpoints, oldest first (secrets are never listed)')).action(async (opts: FormatFlags) => {
    const endpoints = await clientFromEnvironment().webhookEndpoints.list();
    const writer = new RowWriter(process.stdout, formatOf(opts, 'ndjson'), ENDPOINT_COLUMNS, process.stdout.columns ?? 120);
    for (const endpoint of endpoints) await writer.row(endpoint);
    await writer.end();
  });

  withFormats(webhooks.command('get').argument('<id>', 'endpoint id').description('one endpoint'), false).action(async (id: string, opts: FormatFlags) => {
    await printObject(process.stdout, formatOf(opts, 'json'), await clientFromEnvironment().webhookEndpoints.get(id));
  });

  withFormats(
    webhooks
      .command('create')
      .description('add an endpoint; prints it with its signing secret, shown only this once')
      .requiredOption('--url <url>', 'https URL of the receiver')
      .requiredOption('--event <event>', `event to send (repeat, or comma-separated): ${WEBHOOK_EVENTS.join(', ')}`, collect)
      .option('--description <text>', 'free text for administrators'),
    false,
  ).action(async (opts: FormatFlags & { url: string; event: string[]; description?: string }) => {
    const created = await clientFromEnvironment().webhookEndpoints.create({
      url: opts.url,
      events: opts.event as WebhookEventType[],
      ...(opts.description !== undefined ? { description: opts.description } : {}),
    });
    await printObject(process.stdout, formatOf(opts, 'json'), created);
    progressLine('keep the secret: it is not shown again (rotate-secret makes a new one)');
  });

  withFormats(
    webhooks
      .command('update')
      .argument('<id>', 'endpoint id')
      .description('change an endpoint: URL, events, description, enabled or disabled')
      .option('--url <url>', 'new https URL')
      .option('--event <event>', 'the events to send from now on (repeat, or comma-separated)', collect)
      .option('--description <text>', 'new description (empty: none)')
      .addOption(new Option('--enable', 'send events again (clears the reason the service disabled it for)').conflicts('disable'))
      .addOption(new Option('--disable', 'stop sending events').conflicts('enable')),
    false,
  ).action(async (id: string, opts: FormatFlags & { url?: string; event?: string[]; description?: string; enable?: boolean; disable?: boolean }) => {
    const changes = {
      ...(opts.url !== undefined ? { url: opts.url } : {}),
      ...(opts.event !== undefined ? { events: opts.event as WebhookEventType[] } : {}),
      ...(opts.description !== undefined ? { description: opts.description === '' ? null : opts.description } : {}),
      ...(opts.enable ? { status: 'enabled' as const } : opts.disable ? { status: 'disabled' as const } : {}),
    };
    if (Object.keys(changes).length === 0) throw new CliFailure('nothing to change: give --url, --event, --description, --enable or --disable', EXIT.usage);
    await printObject(process.stdout, formatOf(opts, 'json'), await clientFromEnvironment().webhookEndpoints.update(id, changes));
  });

  webhooks
    .command('delete')
    .argument('<id>', 'endpoint id')
    .description('delete an endpoint and its delivery log')
    .action(async (id: string) => {
      await clientFromEnvironment().webhookEndpoints.delete(id);
      progressLine(`deleted ${id}`);
    });

  withFormats(webhooks.command('rotate-secret').argument('<id>', 'endpoint id').description('a new signing secret (the old one keeps signing beside it for 24 hours)'), false).action(
    async (id: string, opts: FormatFlags) => {
      await printObject(process.stdout, formatOf(opts, 'json'), await clientFromEnvironment().webhookEndpoints.rotateSecret(id));
    },
  );

  withFormats(
    webhooks
      .command('deliveries')
      .argument('<id>', 'endpoint id')
      .description('the delivery log of an endpoint, newest first (first page; --all: every page)')
      .option('--all', 'every page')
      .option('--limit <n>', 'deliveries per page (1..100)', (v) => Number.parseInt(v, 10)),
  ).action(async (id: string, opts: FormatFlags & { all?: boolean; limit?: number }) => {
    const writer = new RowWriter(process.stdout, formatOf(opts, 'ndjson'), DELIVERY_COLUMNS, process.stdout.columns ?? 120);
    for await (const page of clientFromEnvironment().webhookEndpoints.deliveries(id, opts.limit ? { limit: opts.limit } : {}).pages()) {
      for (const delivery of page.deliveries) await writer.row(delivery);
      if (!opts.all) break;
    }
    await writer.end();
  });

  webhooks
    .command('retry')
    .argument('<id>', 'endpoint id')
    .argument('<delivery_id>', 'delivery id (from `webhooks deliveries`)')
    .description('send a delivery again (same webhook-id), queued in the background')
    .action(async (id: string, deliveryId: string) => {
      await clientFromEnvironment().webhookEndpoints.retryDelivery(id, deliveryId);
      progressLine(`queued ${deliveryId} again`);
    });

  return cli;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    endProgress();
    if (error instanceof CommanderError) {
      // --help and --version are not failures; commander printed its message already.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    process.stderr.write(`${failureLine(error)}\n`);
    return exitCodeOf(error);
  }
}

// Only as a program (the bundle's entry), not when a test imports program().
if (process.argv[1] && /certdesk-client(\.[cm]?[jt]s)?$/.test(process.argv[1])) {
  const code = await main(process.argv);
  process.stdout.write('', () => process.exit(code));
}

