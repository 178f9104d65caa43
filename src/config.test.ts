import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError, configurationMarkdown, loadConfig, settings } from './config.js';
import { packageRoot } from './paths.js';

describe('configuration', () => {
  it('has documented defaults for an empty environment', () => {
    const c = loadConfig({}, {});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.databaseUrl, null);
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.objectStorageDir, path.resolve('./data/objects'));
    assert.equal(c.publicBaseUrl, 'http://localhost:8080');
    assert.equal(c.issuerUrl, 'http://localhost:8080');
    assert.equal(c.tokenAudience, 'http://localhost:8080/v1');
    assert.equal(c.accessTokenTtlSeconds, 3600);
    assert.equal(c.env, 'development');
  });

  it('lets flags win over environment variables', () => {
    const c = loadConfig({ PORT: '9000', DATA_DIR: '/tmp/a' }, { port: '9100' });
    assert.equal(c.port, 9100);
    assert.equal(c.dataDir, '/tmp/a');
    assert.equal(c.publicBaseUrl, 'http://localhost:9100');
  });

  it('derives issuer and audience from the public base URL unless set', () => {
    const c = loadConfig({ PUBLIC_BASE_URL: 'https://api.example.com/', ISSUER_URL: 'https://auth.example.com' });
    assert.equal(c.publicBaseUrl, 'https://api.example.com');
    assert.equal(c.issuerUrl, 'https://auth.example.com');
    assert.equal(c.tokenAudience, 'https://api.example.com/v1');
  });

  it('takes the client address through a count of trusted proxies; TRUST_PROXY=true means one', () => {
    assert.equal(loadConfig({}).trustedProxyHops, 0);
    assert.equal(loadConfig({ TRUSTED_PROXY_HOPS: '2' }).trustedProxyHops, 2);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustedProxyHops, 1);
    assert.equal(loadConfig({ TRUST_PROXY: 'true', TRUSTED_PROXY_HOPS: '3' }).trustedProxyHops, 3);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }, { trustedProxyHops: '1' }).trustedProxyHops, 1);
    assert.throws(() => loadConfig({ TRUSTED_PROXY_HOPS: 'all' }), /TRUSTED_PROXY_HOPS must be an integer from 0 to 10/);
  });

  it('refuses WEBHOOK_ALLOW_PRIVATE in production and allows it elsewhere', () => {
    assert.equal(loadConfig({}).webhookAllowPrivate, false);
    assert.equal(loadConfig({ CERTDESK_ENV: 'test', WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookAllowPrivate, true);
    assert.throws(() => loadConfig({ CERTDESK_ENV: 'production', MASTER_KEY: 'k'.repeat(40), WEBHOOK_ALLOW_PRIVATE: 'true' }), (e: unknown) => e instanceof ConfigError && /WEBHOOK_ALLOW_PRIVATE/.test(e.message));
  });

  it('names the variable at fault in one line', () => {
    assert.throws(() => loadConfig({ PORT: '80a' }), (e: unknown) => e instanceof ConfigError && /^PORT must be an integer/.test(e.message));
    assert.throws(() => loadConfig({}, { port: '70000' }), /--port must be an integer from 0 to 65535/);
    assert.throws(() => loadConfig({ DATABASE_URL: 'mysql://x' }), /DATABASE_URL must start with postgres/);
    assert.throws(() => loadConfig({ MASTER_KEY: 'short' }), /MASTER_KEY must be at least 32 characters/);
    assert.throws(() => loadConfig({ CERTDESK_ENV: 'staging' }), /CERTDESK_ENV must be development, production or test/);
  });

  it('accepts exactly the integers in range for every integer setting', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), (raw) => {
        let parsed: number | undefined;
        try {
          parsed = loadConfig({ PORT: raw }).port;
        } catch (e) {
          assert.ok(e instanceof ConfigError);
        }
        const expected = raw !== '' && /^\d+$/.test(raw.trim()) && Number(raw) <= 65535 ? Number(raw) : raw === '' ? 8080 : undefined;
        assert.equal(parsed, expected);
      }),
    );
  });

  it('is documented in the README exactly as the settings say', () => {
    const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
    assert.ok(readme.includes(configurationMarkdown()), 'README configuration table is out of date: paste configurationMarkdown()');
    for (const s of settings) assert.ok(readme.includes(`\`${s.env}\``));
  });
});
