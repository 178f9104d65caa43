/** AI_DETECTION_URL's rules (src/config.ts): no credentials, https outside development, secrets never echoed. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

const KEY = { AI_DETECTION_KEY: 'detection-key-value' };

/** Asserts loadConfig refuses `env` with a ConfigError matching `pattern` and repeating none of `secrets`. */
function refuses(env: Record<string, string>, pattern: RegExp, secrets: string[]): void {
  assert.throws(() => loadConfig({ ...KEY, ...env }), (err: unknown) => {
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, pattern);
    for (const secret of secrets) assert.ok(!err.message.includes(secret), `"${err.message}" repeats ${secret}`);
    return true;
  });
}

describe('configuration: AI_DETECTION_URL', () => {
  it('refuses credentials in the URL, in every environment, without repeating them', () => {
    for (const CERTDESK_ENV of ['development', 'test', 'production']) {
      refuses({ CERTDESK_ENV, AI_DETECTION_URL: 'https://svc-user:pa55-secret@detect.example.com/v1' }, /AI_DETECTION_URL must not contain credentials .* AI_DETECTION_KEY/, ['svc-user', 'pa55-secret']);
      refuses({ CERTDESK_ENV, AI_DETECTION_URL: 'https://only-a-token@detect.example.com/v1' }, /must not contain credentials/, ['only-a-token']);
      refuses({ CERTDESK_ENV, AI_DETECTION_URL: 'http://:pw-only@127.0.0.1:9/' }, /must not contain credentials/, ['pw-only']);
    }
    assert.throws(() => loadConfig(KEY, { aiDetectionUrl: 'https://u:flag-secret@detect.example.com' }), (err: Error) => /^--ai-detection-url must not contain credentials/.test(err.message) && !err.message.includes('flag-secret'));
  });

  it('does not repeat a value it cannot parse (it may hold a secret)', () => {
    refuses({ AI_DETECTION_URL: 'detect.example.com/v1?token=qs-secret' }, /AI_DETECTION_URL must be an absolute http:\/\/ or https:\/\/ URL/, ['qs-secret']);
    refuses({ AI_DETECTION_URL: 'ftp://detect.example.com/?token=qs-secret' }, /must be an http:\/\/ or https:\/\/ URL/, ['qs-secret']);
  });

  it('requires https in production; http is allowed in development, and in test only to a loopback address', () => {
    refuses({ CERTDESK_ENV: 'production', AI_DETECTION_URL: 'http://detect.example.com/v1?token=qs-secret' }, /AI_DETECTION_URL must be https:\/\/ in production/, ['qs-secret']);
    refuses({ CERTDESK_ENV: 'production', AI_DETECTION_URL: 'http://127.0.0.1:8081/v1' }, /must be https:\/\/ in production/, []);
    refuses({ NODE_ENV: 'production', AI_DETECTION_URL: 'http://detect.example.com/v1' }, /must be https:\/\/ in production/, []);
    refuses({ CERTDESK_ENV: 'test', AI_DETECTION_URL: 'http://detect.example.com/v1' }, /must be https:\/\/ in test \(http:\/\/ is allowed in test only to a loopback address\)/, []);
    for (const url of ['http://127.0.0.1:8081/v1', 'http://localhost:8081/v1', 'http://[::1]:8081/v1']) {
      assert.equal(loadConfig({ ...KEY, CERTDESK_ENV: 'test', AI_DETECTION_URL: url }).aiDetectionUrl, url);
    }
    assert.equal(loadConfig({ ...KEY, CERTDESK_ENV: 'development', AI_DETECTION_URL: 'http://detect.internal/v1' }).aiDetectionUrl, 'http://detect.internal/v1');
    const production = loadConfig({ ...KEY, CERTDESK_ENV: 'production', MASTER_KEY: 'k'.repeat(32), AI_DETECTION_URL: 'https://detect.example.com/v1?model=2' });
    assert.equal(production.aiDetectionUrl, 'https://detect.example.com/v1?model=2');
  });
});
