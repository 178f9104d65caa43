/** Deterministic demo and benchmark data: the demo seed, generated orders, NDJSON streams, PNG previews. */
export { buildDemoSeed, DEMO_CERTIFIER, DEMO_ORGANIZATIONS, DEMO_PRIMARY } from './demo-seed.js';
export { generateOrder, type DemoPerson, type OrderGeneratorOptions } from './order-generator.js';
export { ndjsonGeneratorOptions, writeNdjsonOrders, type NdjsonOrdersOptions } from './ndjson-orders.js';
export { drawPreview } from './preview-images.js';
export { encodePng } from './png.js';
export { useDemoPreviewsAsAssets } from './demo-assets.repository.js';
