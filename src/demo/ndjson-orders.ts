/**
 * Streams generated orders as NDJSON (one OrderInput per line) for `certdesk demo-data --ndjson` and the
 * import benchmark. Constant memory: lines are produced in small batches and writing waits for 'drain'.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { DEMO_ORGANIZATIONS } from './demo-seed.js';
import { generateOrder, type DemoPerson, type OrderGeneratorOptions } from './order-generator.js';

export interface NdjsonOrdersOptions {
  organizationId: string;
  count: number;
  seed: number;
  /** Project ids to spread orders over; default: the demo organization's projects, else personal orders only. */
  projectIds?: string[];
  /** Order id prefix; default `gen<seed>`. */
  prefix?: string;
}

const GENERIC_PEOPLE: DemoPerson[] = ['Alex Artist', 'Bo Builder', 'Cy Creator', 'Dee Designer'].map((username) => ({
  username,
  email: `${username.toLowerCase().replace(' ', '.')}@import.example`,
}));

/** The generator options for an organization: its demo people and projects when it is a demo organization. */
export function ndjsonGeneratorOptions(options: NdjsonOrdersOptions): OrderGeneratorOptions {
  const demo = DEMO_ORGANIZATIONS.find((o) => o.id === options.organizationId.toLowerCase());
  const people = demo ? [demo.admin, ...demo.members] : GENERIC_PEOPLE;
  const projectIds = options.projectIds ?? demo?.projects.map((p) => p.id) ?? [];
  return {
    seed: options.seed,
    prefix: options.prefix ?? `gen${options.seed}`,
    people,
    projectIds: [...projectIds, null],
    reviewerEmail: people[0]!.email,
    newest: new Date('2026-06-01T00:00:00Z'),
    // A million orders over about two years.
    spacingMinutes: 1,
  };
}

/**
 * Writes options.count orders as NDJSON to out (not ended here), honouring backpressure.
 * @example await writeNdjsonOrders(process.stdout, { organizationId, count: 1000, seed: 1 });
 */
export async function writeNdjsonOrders(out: Writable, options: NdjsonOrdersOptions): Promise<void> {
  const generator = ndjsonGeneratorOptions(options);
  const BATCH = 256;
  let closed = false;
  const onClose = () => (closed = true);
  out.on('close', onClose);
  try {
    for (let start = 0; start < options.count; start += BATCH) {
      if (closed) throw new Error('the output was closed before all orders were written');
      let text = '';
      const end = Math.min(options.count, start + BATCH);
      for (let i = start; i < end; i++) text += `${JSON.stringify(generateOrder(generator, i))}\n`;
      // once() rejects on 'error', so a broken pipe ends the loop instead of waiting forever.
      if (!out.write(text)) await once(out, 'drain');
    }
  } finally {
    out.off('close', onClose);
  }
}
