import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SCOPES } from '../contract/schemas.js';
import { canManageCredential, checkCredentialForm, grantableScopes } from './credential-policy.js';

test('administrators may grant read and write, other members read only', () => {
  assert.deepEqual(grantableScopes({ isAdmin: true }), [SCOPES.read, SCOPES.write]);
  assert.deepEqual(grantableScopes({ isAdmin: false }), [SCOPES.read]);
});

test('administrators manage every credential of their organization, members only their own', () => {
  const admin = { userId: 'a', organizationId: 'o1', isAdmin: true };
  const member = { userId: 'm', organizationId: 'o1', isAdmin: false };
  assert.equal(canManageCredential(admin, { userId: 'm', organizationId: 'o1' }), true);
  assert.equal(canManageCredential(admin, { userId: 'x', organizationId: 'o2' }), false);
  assert.equal(canManageCredential(member, { userId: 'm', organizationId: 'o1' }), true);
  assert.equal(canManageCredential(member, { userId: 'a', organizationId: 'o1' }), false);
});

test('the creation form needs a name and at least one grantable scope', () => {
  assert.deepEqual(checkCredentialForm({ isAdmin: false }, '  CI  ', SCOPES.read), { ok: true, value: { name: 'CI', scopes: [SCOPES.read] } });
  const refused = checkCredentialForm({ isAdmin: false }, '', [SCOPES.read, SCOPES.write]);
  assert.equal(refused.ok, false);
  assert.deepEqual(!refused.ok && refused.errors, ['web.cred.error_name', 'web.cred.error_write']);
  const none = checkCredentialForm({ isAdmin: true }, 'x'.repeat(101), undefined);
  assert.deepEqual(!none.ok && none.errors, ['web.cred.error_name', 'web.cred.error_scopes']);
  assert.equal(checkCredentialForm({ isAdmin: true }, 'ops', [SCOPES.read, SCOPES.write]).ok, true);
});
