import type { Position, PositionCreate, PositionList, PositionListQuery, PositionUpdate } from "../../contracts/recruiting/positions.js";
import type { PositionErasure } from "../../contracts/recruiting/erasure.js";
import { newIdempotencyKey, type RequestOptions } from "../core/http-client.js";
import { paginate } from "../core/paginate.js";
import { path } from "../core/url.js";
import type { RecruitingContext } from "./context.js";

/** Hiring positions of your organisation. */
export class PositionsResource {
  constructor(private readonly ctx: RecruitingContext) {}

  /**
   * Positions as one answer (`{items}`), or one page of them when `limit` is given
   * (`{items, next_cursor}`).
   * @example
   * const { items } = await hb.positions.list({ state: "active" });
   */
  async list(query: PositionListQuery = {}, options?: RequestOptions): Promise<PositionList> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/position`, query }, options);
  }

  /**
   * Every position, fetched `pageSize` at a time (default 100) as you iterate.
   * @example
   * for await (const position of hb.positions.iterate({ state: "active" })) console.log(position.name);
   */
  iterate(
    query: Omit<PositionListQuery, "limit" | "cursor"> & { pageSize?: number } = {},
    options?: RequestOptions,
  ): AsyncGenerator<Position, void, undefined> {
    const { pageSize = 100, ...filters } = query;
    return paginate(async (cursor) => {
      const page = await this.list({ ...filters, limit: pageSize, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.items, next: page.next_cursor };
    });
  }

  /** One position. */
  async get(positionId: string, options?: RequestOptions): Promise<Position> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/position/${positionId}` }, options);
  }

  /**
   * Creates a position; `state` defaults to draft. Sent with an `Idempotency-Key` (a new one per
   * call, or `options.idempotencyKey`), so a retry after a lost answer creates nothing twice.
   * @example
   * const position = await hb.positions.create({ name: "Backend Engineer", min_score: 70 });
   */
  async create(body: PositionCreate, options?: RequestOptions): Promise<Position> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "POST",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/position`,
        body,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
      },
      options,
    );
  }

  /**
   * Changes the fields sent, and only those.
   * @example
   * await hb.positions.update(position.id, { state: "active" });
   */
  async update(positionId: string, body: PositionUpdate, options?: RequestOptions): Promise<Position> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      { method: "PUT", baseUrl: this.ctx.baseUrl, path: path`/org/${org}/position/${positionId}`, body },
      options,
    );
  }

  /**
   * Erases the position with its candidates: each candidate as `candidates.erase` does (a tombstone
   * of ids, who and `reason` stays; the sync does not re-create them; a `candidate.erased` event),
   * then the position itself (a `position.erased` audit entry; a template is withdrawn from the
   * assessment packages). Answers what was erased by kind and count; a second call is a
   * NotFoundError. The ATS keeps its own copy: erase it there. Not retried.
   * @example
   * const { erased } = await hb.positions.erase(position.id, { reason: "position closed" });
   */
  async erase(positionId: string, opts: { reason?: string } = {}, options?: RequestOptions): Promise<PositionErasure> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      {
        method: "DELETE",
        baseUrl: this.ctx.baseUrl,
        path: path`/org/${org}/position/${positionId}`,
        query: opts.reason === undefined ? undefined : { reason: opts.reason },
        idempotent: false,
      },
      options,
    );
  }
}
