import type {
  AssessmentOrderParams,
  AssessmentOrdersQuery,
  AssessmentPackageInput,
  AssessmentResult,
} from "../../contracts/proxy/assessment.js";
import type {
  AssessmentOrderListQuery,
  AssessmentOrderPage,
  AssessmentSettings,
  PublishPackagesResult,
} from "../../contracts/proxy/assessment-orders.js";
import type { AssessmentOrder, AssessmentPackage } from "../../contracts/upstream/assessment.js";
import type { UpstreamActionSuccess, UpstreamSuccess } from "../../contracts/upstream/envelopes.js";
import type { RequestOptions } from "../core/http-client.js";
import { paginate } from "../core/paginate.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";
import { ListResource } from "./list-resource.js";

type Empty = Record<string, never>;

/**
 * The packages an integration's ATS offers its recruiters: what Hirebridge published there (its
 * positions in state `template`), or a list you set yourself.
 */
export class AssessmentPackagesResource {
  constructor(private readonly ctx: ProxyContext) {}

  /**
   * The integration's packages as the ATS has them.
   * @example
   * const { data } = await hb.assessment.packages.list(integrationId);
   * for (const p of data.packages) console.log(p.id, p.type, p.name);
   */
  list(integrationId: string, options?: RequestOptions): Promise<UpstreamSuccess<{ packages: AssessmentPackage[] }>> {
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: "/assessment/packages", query: { integration_id: integrationId } },
      options,
    );
  }

  /**
   * Replaces the integration's whole list of packages (an empty list removes them all).
   * @example
   * await hb.assessment.packages.set(integrationId, [
   *   { id: "backend-screen", type: "VIDEO_INTERVIEW", name: "Backend screen", description: "20 minutes" },
   * ]);
   */
  set(integrationId: string, packages: AssessmentPackageInput[], options?: RequestOptions): Promise<UpstreamActionSuccess<Empty>> {
    return this.ctx.http.request(
      {
        method: "PUT",
        baseUrl: this.ctx.baseUrl,
        path: "/assessment/packages",
        query: { integration_id: integrationId },
        body: { packages },
      },
      options,
    );
  }

  /**
   * Publishes the organisation's interview packages (its positions in state `template`) to the
   * integration now, replacing its list (Hirebridge also does this by itself when they change).
   * @example
   * const { packages, published_at } = await hb.assessment.packages.publish(integrationId);
   */
  publish(integrationId: string, options?: RequestOptions): Promise<PublishPackagesResult> {
    return this.ctx.http.request(
      {
        method: "POST",
        baseUrl: this.ctx.baseUrl,
        path: path`/integrations/${integrationId}/assessment/packages/publish`,
        idempotent: true, // publishing replaces the whole list: a repeat does the same
      },
      options,
    );
  }
}

/**
 * The orders placed in an integration's ATS, read live from it (the fallback for missed webhooks),
 * and the result written on an order.
 * @example
 * for await (const order of hb.assessment.orders.iterate({ integration_id, statuses: "OPEN" })) {
 *   console.log(order.id, order.package_id, order.candidate.email);
 * }
 */
export class AssessmentOrdersResource extends ListResource<AssessmentOrdersQuery, AssessmentOrder> {
  constructor(ctx: ProxyContext) {
    super(ctx, "/assessment/orders");
  }

  /**
   * Writes the order's result (status, score, attributes, attachments); the status can change only
   * while the order is OPEN.
   * @example
   * await hb.assessment.orders.updateResult(integrationId, orderId, {
   *   status: "COMPLETED", result_url: "https://…", completed_at: new Date().toISOString(), score: 82, max_score: 100,
   * });
   */
  updateResult(
    integrationId: string,
    orderId: AssessmentOrderParams["assessment_order_id"],
    result: AssessmentResult,
    options?: RequestOptions,
  ): Promise<UpstreamActionSuccess<Empty>> {
    return this.ctx.http.request(
      {
        method: "PUT",
        baseUrl: this.ctx.baseUrl,
        path: path`/assessment/orders/${orderId}/result`,
        query: { integration_id: integrationId },
        body: result,
      },
      options,
    );
  }
}

/** The upstream's assessment channel through the proxy: packages and orders of one integration. */
export class AssessmentResource {
  readonly packages: AssessmentPackagesResource;
  readonly orders: AssessmentOrdersResource;

  constructor(private readonly ctx: ProxyContext) {
    this.packages = new AssessmentPackagesResource(ctx);
    this.orders = new AssessmentOrdersResource(ctx);
  }

  /**
   * The orders Hirebridge received from the integration, newest first, with the names of their
   * candidates and packages (Hirebridge's records; the ATS is not asked). `next` continues the list.
   * @example
   * const { items, next } = await hb.assessment.receivedOrders(integrationId, { limit: 20 });
   */
  receivedOrders(integrationId: string, query: AssessmentOrderListQuery = {}, options?: RequestOptions): Promise<AssessmentOrderPage> {
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/assessment/orders`, query },
      options,
    );
  }

  /**
   * Every order Hirebridge received from the integration, newest first, page by page as the loop
   * asks for them.
   * @example
   * for await (const order of hb.assessment.iterateReceivedOrders(integrationId)) {
   *   console.log(order.order_id, order.status, order.candidate_name, order.result_status);
   * }
   */
  iterateReceivedOrders(integrationId: string, query: Omit<AssessmentOrderListQuery, "after"> = {}, options?: RequestOptions) {
    return paginate(async (after) => {
      const page = await this.receivedOrders(integrationId, { ...query, ...(after ? { after } : {}) }, options);
      return { items: page.items, next: page.next };
    });
  }

  /** Whether the integration takes orders (always, for category ASSESSMENT) and when its packages were last published. */
  settings(integrationId: string, options?: RequestOptions): Promise<AssessmentSettings> {
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/assessment/settings` },
      options,
    );
  }

  /**
   * Turns orders on or off for an integration of another category; turned on, its packages are published at once.
   * @example
   * await hb.assessment.updateSettings(integrationId, { takes_orders: true });
   */
  updateSettings(integrationId: string, body: { takes_orders: boolean }, options?: RequestOptions): Promise<AssessmentSettings> {
    return this.ctx.http.request(
      { method: "PUT", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/assessment/settings`, body, idempotent: true },
      options,
    );
  }
}
