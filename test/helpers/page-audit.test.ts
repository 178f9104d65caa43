/** The strict-CSP page audit finds what it must and nothing else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy } from '../../src/web/security-headers.js';
import { inlineCodeProblems, scriptPolicyProblems } from './page-audit.js';

test('inline code a strict policy blocks is found', () => {
  assert.deepEqual(inlineCodeProblems('<p>x</p><script>alert(1)</script>'), ['an inline <script> element', 'a <script> element with code inside']);
  assert.deepEqual(inlineCodeProblems('<script src="/static/a.js">alert(1)</script>'), ['a <script> element with code inside']);
  assert.deepEqual(inlineCodeProblems('<script src="https://cdn.example/a.js"></script>'), ['a script from elsewhere: https://cdn.example/a.js']);
  assert.deepEqual(inlineCodeProblems('<script src="//cdn.example/a.js"></script><script src="./static/b.js"></script>'), ['a script from elsewhere: //cdn.example/a.js']);
  assert.deepEqual(inlineCodeProblems('<button type="button" onclick="go()">Go</button>'), ['an inline event handler onclick on <button>']);
  assert.deepEqual(inlineCodeProblems('<img src=x ONERROR=alert(1)>'), ['an inline event handler onerror on <img>']);
  assert.deepEqual(inlineCodeProblems('<a href="javascript&#58;alert(1)">x</a>'), ['a javascript: URL in href of <a>']);
  assert.deepEqual(inlineCodeProblems('<div style="color:red"></div><style>p{}</style>'), ['a style attribute on <div>', 'an inline <style> element']);
  assert.deepEqual(inlineCodeProblems('<div style="color:red"></div>', { styles: false }), []);
});

test('escaped text, attribute values and external scripts are not inline code', () => {
  const page = [
    '<!doctype html><html lang="en"><head><script src="/static/app.js?v=abc" defer></script></head>',
    '<body><p>&lt;img src=x onerror=alert(1)&gt; &lt;script&gt;alert(1)&lt;/script&gt;</p>',
    '<input name="note" value="a onclick=b &quot;onload=c&quot;" title=\'javascript is fine here\'>',
    '<a href="/orders?on=1" data-online="yes">x</a></body></html>',
  ].join('');
  assert.deepEqual(inlineCodeProblems(page), []);
});

test('the web pages’ policy allows scripts from this origin only', () => {
  assert.deepEqual(scriptPolicyProblems(contentSecurityPolicy(['https://bucket.example'])), []);
  assert.deepEqual(scriptPolicyProblems("default-src 'self'"), []);
  assert.deepEqual(scriptPolicyProblems("script-src 'self' 'unsafe-inline'"), ["script-src allows 'unsafe-inline'"]);
  assert.deepEqual(scriptPolicyProblems("img-src 'self'"), ['no script-src (nor default-src) directive']);
  assert.deepEqual(scriptPolicyProblems(undefined), ['no Content-Security-Policy header']);
  // WebAssembly only where the page is allowed it (the verify pages' C2PA reader).
  assert.deepEqual(scriptPolicyProblems("script-src 'self' 'wasm-unsafe-eval'"), ["script-src allows 'wasm-unsafe-eval'"]);
  assert.deepEqual(scriptPolicyProblems("script-src 'self' 'wasm-unsafe-eval'", { wasm: true }), []);
  assert.deepEqual(scriptPolicyProblems("script-src 'self' 'unsafe-eval'", { wasm: true }), ["script-src allows 'unsafe-eval'"]);
});
