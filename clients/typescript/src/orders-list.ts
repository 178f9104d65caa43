/**
 * `client.orders.list(...)`: an async iterable over every order across pages, fetching one page at a
 * time as the loop asks for more (constant memory however many orders there are); `.pages()` iterates
 * whole pages (with `order_stats` and `next_page_token`).
 */
import { oneLine, splitPage } from './order-json.js';
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
  /**
   * Ask for the next page while the loop works on the current one (at most two pages in memory), so
   * the server's time and the caller's overlap: for exports that walk every page. A loop that stops
   * early cancels the request ahead. Default false.
   */
  prefetch?: boolean;
  signal?: AbortSignal;
}

/** A page as `OrderList.jsonPages()` yields it: each order as the JSON text the server sent, on one line. */
export interface OrdersJsonPage {
  /** One JSON text per order (or preview), in order; no line breaks. */
  items: string[];
  order_stats: OrdersPage['order_stats'];
  project_names: OrdersPage['project_names'];
  next_page_token: string | null;
}

type FetchPage = {
  (pageToken: string | null, signal: AbortSignal | undefined, raw: false): Promise<OrdersPage>;
  (pageToken: string | null, signal: AbortSignal | undefined, raw: true): Promise<string>;
};

export class OrderList<T extends Order | OrderPreview> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: FetchPage,
    private readonly preview: boolean,
    private readonly startToken: string | null,
    private readonly prefetch = false,
  ) {}

  /** Every page, in order, until `next_page_token` is null. */
  pages(): AsyncGenerator<OrdersPage, void, undefined> {
    return this.walk((token, signal) => this.fetchPage(token, signal, false));
  }

  /**
   * Every page with its orders as JSON text instead of objects (`items`), for exports that write the
   * orders out as they are (`certdesk-client orders list --ndjson`): the orders are split out of the
   * page without being parsed, which costs a fraction of a parse and a serialization per order.
   */
  jsonPages(): AsyncGenerator<OrdersJsonPage, void, undefined> {
    const key = this.preview ? 'order_previews' : 'orders';
    return this.walk(async (token, signal) => {
      const { items, members } = splitPage(await this.fetchPage(token, signal, true), key);
      for (let i = 0; i < items.length; i++) items[i] = oneLine(items[i]!);
      return {
        items,
        order_stats: members.order_stats as OrdersPage['order_stats'],
        project_names: members.project_names as OrdersPage['project_names'],
        next_page_token: (members.next_page_token as string | null | undefined) ?? null,
      };
    });
  }

  private async *walk<P extends { next_page_token: string | null }>(fetch: (pageToken: string | null, signal?: AbortSignal) => Promise<P>): AsyncGenerator<P, void, undefined> {
    if (!this.prefetch) {
      let token = this.startToken;
      do {
        const page = await fetch(token);
        yield page;
        token = page.next_page_token;
      } while (token !== null);
      return;
    }
    const ahead = new AbortController();
    let next: Promise<P> | null = fetch(this.startToken, ahead.signal);
    try {
      while (next) {
        const page: P = await next;
        next = null;
        if (page.next_page_token !== null) {
          next = fetch(page.next_page_token, ahead.signal);
          // Awaited on the next turn; a loop that stops before then must not leave an unhandled rejection.
          next.catch(() => {});
        }
        yield page;
      }
    } finally {
      ahead.abort();
    }
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
