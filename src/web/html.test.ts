import assert from 'node:assert/strict';
import { test } from 'node:test';
import { html } from './html.js';

test('html escapes interpolated text and attributes', () => {
  const name = `<script>alert("x")</script>&'`;
  assert.equal(
    html`<p title="${name}">${name}</p>`.toString(),
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
  );
});

test('html nests safe fragments, joins arrays and drops null, undefined and false', () => {
  const items = ['a<b', 'c'].map((x) => html`<li>${x}</li>`);
  assert.equal(html`<ul>${items}${null}${undefined}${false}${0}</ul>`.toString(), '<ul><li>a&lt;b</li><li>c</li>0</ul>');
});
