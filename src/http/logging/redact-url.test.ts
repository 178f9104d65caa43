import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { REDACTED, redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('redacts credentials and keeps the path and other parameters', () => {
    assert.equal(redactUrl('/objects/orgs/a/b.png?expires=17&signature=abc_-'), `/objects/orgs/a/b.png?expires=17&signature=${REDACTED}`);
    assert.equal(
      redactUrl('/v1/orders?project_id=All%20Projects&page_token=eyJ&limit=5'),
      `/v1/orders?project_id=All%20Projects&page_token=${REDACTED}&limit=5`,
    );
    assert.equal(redactUrl('/oauth2/token?client_secret=s&My%5FSecret=x&token=t&code=c&access_token=a&q=1'), `/oauth2/token?client_secret=${REDACTED}&My%5FSecret=${REDACTED}&token=${REDACTED}&code=${REDACTED}&access_token=${REDACTED}&q=1`);
    assert.equal(redactUrl('/plain/path'), '/plain/path');
    assert.equal(redactUrl('/x?signature'), '/x?signature');
  });

  it('never lets a sensitive value through, whatever surrounds it', () => {
    const name = fc.constantFrom('signature', 'page_token', 'client_secret', 'x_secret_y', 'token', 'code', 'SIGNATURE');
    const other = fc.stringMatching(/^[a-z]{1,8}=[a-z0-9]{0,8}$/).filter((p) => !/secret|token|^signature=|^code=/.test(p));
    fc.assert(
      fc.property(fc.array(other, { maxLength: 4 }), name, fc.stringMatching(/^[A-Za-z0-9_~.-]{8,40}$/), fc.array(other, { maxLength: 4 }), (before, n, value, after) => {
        const url = `/p/a?${[...before, `${n}=${value}`, ...after].join('&')}`;
        const out = redactUrl(url);
        assert.ok(!out.includes(`${n}=${value}`), out);
        assert.ok(out.startsWith('/p/a?'));
        for (const p of [...before, ...after]) assert.ok(out.includes(p));
      }),
    );
  });
});
