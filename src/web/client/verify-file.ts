// The file check (/verify): a dropped or chosen image's Content Credentials are read and validated in
// this tab with the C2PA reference implementation (WebAssembly served by certdesk, fetched on the first
// file), then, when its active manifest carries certdesk's certificate: the certificate's JWS is checked
// against the JWKS and its live status asked of the public route. Nothing is uploaded. The page says in
// plain words who certified the file and when, whether the file is intact, and why not when it is not.

import { proofsOfCredentialedFile, verifyCertificateInLog, type CertificateLogStatus, type TransparencyLogObject } from '../../../clients/typescript/src/tlog/certificate-log.js';
import { TransparencyLogError } from '../../../clients/typescript/src/tlog/errors.js';
import { parseVerifierKey } from '../../../clients/typescript/src/tlog/note.js';
import { CheckFailure, fetchJson, fetchText, verifyJws } from './lib/certificate-signature.js';
import { assertionDisagreement, readFileCredentials, type ContentCredentialsReading } from './lib/content-credentials.js';
import { message } from './lib/page-messages.js';
import { onFileChosen } from './lib/file-picker.js';

type Verdict = 'reading' | 'certified' | 'revoked' | 'altered' | 'untrusted' | 'bad-signature' | 'bad-log' | 'foreign' | 'unknown' | 'none' | 'other' | 'error';
type CheckResult = 'pass' | 'fail' | 'info';

interface PublicCertificate {
  certificate_id: string;
  status: 'valid' | 'revoked';
  issued_at: string;
  revoked_at: string | null;
  revocation_reason: string | null;
  transparency_log?: TransparencyLogObject | null;
}

interface Outcome {
  verdict: Verdict;
  vars: Record<string, string>;
  checks: Array<{ check: string; result: CheckResult; text: string }>;
  /** The certificate page of this service, when the file names one of its certificates. */
  link?: string;
}

function dateText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'long', timeStyle: 'short' });
}

/**
 * The transparency-log check of the certificate, with the client's verifier: the proof the file carries
 * (a file alone proves its certificate was logged), else the one the public route has now; the
 * checkpoint's signature against this service's /log/key. `unavailable` when the log key cannot be read.
 */
async function checkLog(root: HTMLElement, jws: string, issuedAtSeconds: number, carried: unknown, record: PublicCertificate): Promise<CertificateLogStatus | 'unavailable'> {
  let keyText: string;
  try {
    keyText = await fetchText(root.dataset.logKeyUrl ?? '');
  } catch {
    return 'unavailable';
  }
  return verifyCertificateInLog({
    jws,
    issuedAtSeconds,
    transparencyLog: proofsOfCredentialedFile(carried as TransparencyLogObject | undefined, record.transparency_log),
    logKey: await parseVerifierKey(keyText),
    revokedAt: record.revoked_at,
  });
}

function logCheck(root: HTMLElement, status: CertificateLogStatus | 'unavailable', carried: boolean): Outcome['checks'][number] {
  const m = (name: string, vars: Record<string, string> = {}) => message(root, name, vars);
  if (status === 'unavailable') return { check: 'log', result: 'info', text: m('log-unavailable') };
  if (status.status === 'pending') return { check: 'log', result: 'info', text: m('log-pending', { seconds: String(Math.max(0, Math.round(status.issuedAgoMs / 1000))) }) };
  const included = m(carried ? 'log-included-file' : 'log-included', { origin: status.origin, index: String(status.issued.index), size: String(status.issued.checkpoint.size), key: root.dataset.logKeyUrl ?? '' });
  return { check: 'log', result: 'pass', text: status.revoked ? `${included} ${m('log-revocation', { index: String(status.revoked.index) })}` : included };
}

/** The outcome for a file whose active manifest carries certdesk's assertion. */
async function certdeskOutcome(root: HTMLElement, reading: Extract<ContentCredentialsReading, { kind: 'certdesk' }>): Promise<Outcome> {
  const { assertion, manifest } = reading;
  const m = (name: string, vars: Record<string, string> = {}) => message(root, name, vars);
  const signer = manifest.signer ?? m('unknown-signer');
  const checks: Outcome['checks'] = [];
  const fileCheck = reading.intact
    ? { check: 'file', result: 'pass' as const, text: m('check-intact') }
    : { check: 'file', result: 'fail' as const, text: m('check-altered', { codes: reading.failures.map((f) => f.code).join(', ') }) };
  checks.push(fileCheck);
  if (!reading.intact) return { verdict: 'altered', vars: {}, checks };
  if (!reading.trusted) {
    checks.push({ check: 'signer', result: 'fail', text: m('check-signer-untrusted', { signer }) });
    return { verdict: 'untrusted', vars: { signer }, checks };
  }
  checks.push({ check: 'signer', result: 'pass', text: m('check-signer', { signer }) });
  if (assertion.issuer !== root.dataset.issuer) {
    return { verdict: 'foreign', vars: { issuer: assertion.issuer, verify_url: assertion.verify_url }, checks };
  }
  const link = `/verify/${encodeURIComponent(assertion.certificate_id)}`;
  let claims: Record<string, unknown>;
  try {
    const jwks = await fetchJson(root.dataset.jwksUrl ?? '');
    const verified = await verifyJws(assertion.jws, jwks, root.dataset.issuer ?? '');
    if (assertionDisagreement(assertion, verified.claims)) throw new CheckFailure('mismatch');
    claims = verified.claims;
    checks.push({ check: 'signature', result: 'pass', text: m('check-signature-valid', { jwks: root.dataset.jwksUrl ?? '', kid: verified.kid }) });
  } catch (err) {
    const failure = err instanceof CheckFailure ? err : new CheckFailure('signature');
    checks.push({ check: 'signature', result: 'fail', text: m('check-signature-invalid', { reason: m(`reason-${failure.reason}`, failure.vars) }) });
    return { verdict: 'bad-signature', vars: {}, checks };
  }
  let record: PublicCertificate;
  try {
    record = (await fetchJson(`/v1/certificates/${encodeURIComponent(assertion.certificate_id)}`)) as PublicCertificate;
  } catch (err) {
    if (err instanceof CheckFailure && err.vars.status === '404') return { verdict: 'unknown', vars: { certificate_id: assertion.certificate_id }, checks };
    throw err;
  }
  const vars = { organization: String(claims.org_name ?? ''), date: dateText(record.issued_at), asset: String(claims.asset_name ?? '') };
  const revoked = record.status !== 'valid';
  checks.push(
    revoked
      ? { check: 'status', result: 'fail', text: m('check-status-revoked', { date: dateText(record.revoked_at ?? ''), reason: record.revocation_reason ?? '' }) }
      : { check: 'status', result: 'pass', text: m('check-status-valid') },
  );
  try {
    const status = await checkLog(root, assertion.jws, Number(claims.iat), assertion.transparency_log, record);
    checks.push(logCheck(root, status, assertion.transparency_log !== undefined));
  } catch (err) {
    const reason = err instanceof TransparencyLogError && ['missing', 'signature', 'inclusion', 'entry', 'unsupported'].includes(err.reason) ? err.reason : 'malformed';
    checks.push({ check: 'log', result: 'fail', text: m('log-failed', { reason: m(`log-reason-${reason}`) }) });
    return { verdict: 'bad-log', vars: {}, checks, link };
  }
  return { verdict: revoked ? 'revoked' : 'certified', vars, checks, link };
}

async function outcomeOf(root: HTMLElement, file: File): Promise<Outcome> {
  const m = (name: string, vars: Record<string, string> = {}) => message(root, name, vars);
  let reading: ContentCredentialsReading;
  try {
    reading = await readFileCredentials(file, { wasm: root.dataset.c2paWasmUrl ?? '', trustAnchors: root.dataset.trustAnchorsUrl ?? '' });
  } catch (err) {
    return { verdict: 'error', vars: { error: err instanceof Error ? err.message : String(err) }, checks: [] };
  }
  if (reading.kind === 'none') return { verdict: 'none', vars: {}, checks: [] };
  if (reading.kind === 'other') {
    const vars = { signer: reading.manifest.signer ?? m('unknown-signer'), generator: reading.manifest.claimGenerator ?? m('unknown-generator') };
    const checks: Outcome['checks'] = [
      reading.intact ? { check: 'file', result: 'info', text: m('check-other-intact') } : { check: 'file', result: 'fail', text: m('check-altered', { codes: reading.failures.map((f) => f.code).join(', ') }) },
    ];
    return { verdict: 'other', vars, checks };
  }
  return certdeskOutcome(root, reading);
}

function render(root: HTMLElement, name: string, outcome: Outcome): void {
  const verdict = document.getElementById('file-verdict')!;
  const list = document.getElementById('file-checks')!;
  const section = document.getElementById('file-result')!;
  section.dataset.verdict = outcome.verdict;
  section.hidden = false;
  verdict.textContent = message(root, `verdict-${outcome.verdict}`, { name, ...outcome.vars });
  list.replaceChildren(
    ...outcome.checks.map(({ check, result, text }) => {
      const item = document.createElement('li');
      item.dataset.check = check;
      item.dataset.result = result;
      item.textContent = text;
      return item;
    }),
  );
  const link = document.getElementById('certificate-link') as HTMLAnchorElement;
  if (outcome.link) {
    link.href = outcome.link;
    link.hidden = false;
  } else {
    link.hidden = true;
  }
}

function setUp(root: HTMLElement): void {
  const input = document.getElementById('file-to-check') as HTMLInputElement | null;
  const dropZone = document.getElementById('drop-zone');
  if (!input || !dropZone) return;
  let checking = 0;
  async function check(file: File): Promise<void> {
    const mine = ++checking;
    render(root, file.name, { verdict: 'reading', vars: {}, checks: [] });
    let outcome: Outcome;
    try {
      outcome = await outcomeOf(root, file);
    } catch {
      outcome = { verdict: 'error', vars: { error: message(root, 'reason-unavailable') }, checks: [] };
    }
    if (mine === checking) render(root, file.name, outcome); // else a newer file was chosen meanwhile
  }
  onFileChosen(input, dropZone, (file) => void check(file));
}

const root = document.getElementById('file-check');
if (root) setUp(root);
