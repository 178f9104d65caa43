import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnnotationT } from '../../contract/schemas.js';
import { translatorFor, type WebContext } from '../web-context.js';
import { annotationOverlay } from './annotation-overlay.js';

const ctx: WebContext = { lang: 'en', t: translatorFor('en'), session: null, url: '/' };

const rectangle: AnnotationT = {
  id: 'a1',
  bodies: [{ value: '<img src=x onerror=alert(1)>', id: 'b1', annotation: 'a1' }],
  properties: { needs_remediation: true, ai_likelihood: 0.8 },
  target: { annotation: 'a1', selector: { type: 'RECTANGLE', geometry: { bounds: { minX: 0.1, minY: 0.2, maxX: 0.4, maxY: 0.3 } } } },
};
const polygon: AnnotationT = {
  id: 'a2',
  properties: { needs_remediation: false, ai_likelihood: null },
  target: {
    annotation: 'a2',
    selector: { type: 'POLYGON', geometry: { bounds: { minX: 0.5, minY: 0.5, maxX: 0.9, maxY: 0.9 }, points: [[0.5, 0.5], [0.9, 0.6], [0.7, 0.9]] } },
  },
};

test('one shape per drawable annotation, in the 0..1 viewBox stretched over the image', () => {
  const out = annotationOverlay(ctx, 'https://x/p.png?a=1&b=2', 'Preview', [rectangle, polygon, { id: 'no-target' }]).toString();
  assert.match(out, /<svg class="overlay-shapes" viewBox="0 0 1 1" preserveAspectRatio="none"/);
  assert.match(out, /<rect x="0.1" y="0.2" width="0.3" height="0.1" class="annotation needs-remediation"/);
  assert.match(out, /<polygon points="0.5,0.5 0.9,0.6 0.7,0.9" class="annotation"/);
  assert.equal(out.match(/<(rect|polygon) /g)?.length, 2);
  assert.match(out, /data-annotation-id="a1"[\s\S]*data-needs-remediation="true"/);
  assert.match(out, /src="https:\/\/x\/p.png\?a=1&amp;b=2"/);
});

test('annotation texts are escaped and the details name the AI likelihood', () => {
  const out = annotationOverlay(ctx, '/p.png', 'Preview', [rectangle]).toString();
  assert.ok(!out.includes('<img src=x'));
  assert.match(out, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.match(out, /AI likelihood<\/dt><dd>0.8<\/dd>/);
});

test('a rectangle with swapped bounds is normalized and clamped to the image', () => {
  const swapped: AnnotationT = {
    id: 's',
    target: { annotation: 's', selector: { type: 'RECTANGLE', geometry: { bounds: { minX: 0.9, minY: 1.2, maxX: 0.6, maxY: 0.7 } } } },
  };
  const out = annotationOverlay(ctx, '/p.png', 'Preview', [swapped]).toString();
  assert.match(out, /<rect x="0.6" y="0.7" width="0.3" height="0.3"/);
});
