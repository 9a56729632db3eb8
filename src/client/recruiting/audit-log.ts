import type { AuditEntryView, AuditLogPage, AuditLogQuery, AuditVerify } from "../../contracts/recruiting/audit-log.js";
import type { RequestOptions } from "../core/http-client.js";
import { path, type Query } from "../core/url.js";
import type { RecruitingContext } from "./context.js";

/** The list's filters and page (`format` is the SDK's to choose: JSON). */
export type AuditListQuery = Omit<AuditLogQuery, "format">;

/**
 * Your organisation's audit log (docs/privacy.md, Audit log): every change made through the APIs,
 * console and CLI, with who made it; append-only and hash-chained, so `verify` finds an entry
 * changed or removed in the database.
 */
export class AuditLogResource {
  constructor(private readonly ctx: RecruitingContext) {}

  private async get<T>(rest: string, query: Query, options?: RequestOptions): Promise<T> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: `${path`/org/${org}/audit-log`}${rest}`, query },
      options,
    );
  }

  /**
   * One page, newest first; pass `next_cursor` back as `cursor` for the next.
   * @example
   * const { items } = await hb.audit.list({ action: "interview.corrected", since: "2025-06-01T00:00:00Z" });
   */
  list(query: AuditListQuery = {}, options?: RequestOptions): Promise<AuditLogPage> {
    return this.get("", query, options);
  }

  /** Every entry the filters match, newest first, page after page. */
  async *iterate(query: AuditListQuery = {}, options?: RequestOptions): AsyncGenerator<AuditEntryView> {
    let cursor = query.cursor;
    do {
      const page = await this.list({ ...query, ...(cursor === undefined ? {} : { cursor }) }, options);
      yield* page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** Walks the chain: `ok` false and `broken` naming the first entry that does not hold. */
  verify(options?: RequestOptions): Promise<AuditVerify> {
    return this.get("/verify", {}, options);
  }
}
