/**
 * `client.orders.list(...)`: an async iterable over every order across pages, fetching one page at a
 * time as the loop asks for more (constant memory however many orders there are); `.pages()` iterates
 * whole pages (with `order_stats` and `next_page_token`).
 */
import type { Order, OrderPreview, OrdersPage } from './types.js';

export interface ListOrdersParams {
  /** `All Projects`, `Personal Certificates`, or the id of a project. */
  projectId: string;
  /** true: `OrderPreview` items instead of full orders. */
  preview?: boolean;
  /** Orders per page, 1..1000 (server default 200). */
  limit?: number;
  /** Start from this `next_page_token` (resume a walk). */
  pageToken?: string | null;
  signal?: AbortSignal;
}

export class OrderList<T extends Order | OrderPreview> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (pageToken: string | null) => Promise<OrdersPage>, private readonly preview: boolean, private readonly startToken: string | null) {}

  /** Every page, in order, until `next_page_token` is null. */
  async *pages(): AsyncGenerator<OrdersPage, void, undefined> {
    let token = this.startToken;
    do {
      const page = await this.fetchPage(token);
      yield page;
      token = page.next_page_token;
    } while (token !== null);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) {
      const items = (this.preview ? page.order_previews : page.orders) ?? [];
      for (const item of items) yield item as T;
    }
  }

  /** Every order in one array (convenient for small scopes; iterate for large ones). */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}
