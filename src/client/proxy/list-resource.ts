import type { UpstreamListSuccess } from "../../contracts/upstream/envelopes.js";
import type { RequestOptions } from "../core/http-client.js";
import { paginate } from "../core/paginate.js";
import type { Query } from "../core/url.js";
import type { ProxyContext } from "./context.js";

/**
 * A cursor-paginated list of the proxy: `list` answers one page as the upstream sent it (envelope
 * included); `iterate` walks every page (`data.next`) and yields the records.
 */
export class ListResource<Q extends object, T> {
  constructor(
    protected readonly ctx: ProxyContext,
    private readonly listPath: string,
  ) {}

  /** One page. Pass `cursor` (`data.next` of the previous page) for the next one. */
  list(query: Q, options?: RequestOptions): Promise<UpstreamListSuccess<T>> {
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: this.listPath, query: query as Query }, options);
  }

  /** Every record of every page, fetched lazily; `cursor` in `query` is where to start. */
  iterate(query: Q, options?: RequestOptions): AsyncGenerator<T, void, undefined> {
    const start = (query as { cursor?: string | null }).cursor ?? undefined;
    return paginate(async (cursor) => {
      const page = await this.list({ ...query, cursor: cursor ?? start }, options);
      return { items: page.data.results, next: page.data.next };
    });
  }
}
