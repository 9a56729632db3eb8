import type {
  CustomFieldMapping,
  CustomFieldsQuery,
  IntegrationFieldsQuery,
  IntegrationFieldUpdate,
  RelinkRequest,
} from "../../contracts/proxy/integrations.js";
import type { IntegrationList, IntegrationListQuery, IntegrationSummary, IntegrationUpdate } from "../../contracts/proxy/webhooks.js";
import type { UpstreamSuccess } from "../../contracts/upstream/envelopes.js";
import type { CustomField, IntegrationDetails, IntegrationField, LinkResult } from "../../contracts/upstream/integration-records.js";
import type { RequestOptions } from "../core/http-client.js";
import { paginate } from "../core/paginate.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";
import { ListResource } from "./list-resource.js";

/** A list under one integration (`/integrations/{id}/…`): the id is bound, the query is paging only. */
class IntegrationSubList<Q extends object, T> {
  constructor(
    private readonly ctx: ProxyContext,
    private readonly suffix: string,
  ) {}
  private of(integrationId: string) {
    return new ListResource<Q, T>(this.ctx, `${path`/integrations/${integrationId}`}${this.suffix}`);
  }
  /** One page of the integration's list. */
  list(integrationId: string, query: Q = {} as Q, options?: RequestOptions) {
    return this.of(integrationId).list(query, options);
  }
  /** Every record, across pages. */
  iterate(integrationId: string, query: Q = {} as Q, options?: RequestOptions) {
    return this.of(integrationId).iterate(query, options);
  }
}

/** Integration management: details, delete, relink, integration fields and custom-field mappings. */
export class IntegrationsResource {
  /** The integration's fields (`page_size` up to 2000), including their mapping to custom fields. */
  readonly fields: IntegrationSubList<IntegrationFieldsQuery, IntegrationField>;
  /** The integration's custom fields (`page_size` up to 250), with the integration field each maps to. */
  readonly customFields: IntegrationSubList<CustomFieldsQuery, CustomField>;

  constructor(private readonly ctx: ProxyContext) {
    this.fields = new IntegrationSubList(ctx, "/integration-fields");
    this.customFields = new IntegrationSubList(ctx, "/custom-fields");
  }

  /**
   * Your organisation's integrations (Hirebridge's records: tool, category, state, the newest sync
   * run of each model, write-backs still to go out), oldest first; one page when `limit` is given.
   * @example
   * const { items } = await hb.integrations.list();
   * for (const i of items) console.log(i.id, i.state, i.last_sync.applications?.state);
   */
  list(query: IntegrationListQuery = {}, options?: RequestOptions): Promise<IntegrationList> {
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: "/integrations", query }, options);
  }

  /** Every integration of your organisation, fetched `pageSize` at a time (default 100) as you iterate. */
  iterate(query: { pageSize?: number } = {}, options?: RequestOptions): AsyncGenerator<IntegrationSummary, void, undefined> {
    const { pageSize = 100 } = query;
    return paginate(async (cursor) => {
      const page = await this.list({ limit: pageSize, ...(cursor ? { cursor } : {}) }, options);
      return { items: page.items, next: page.next_cursor };
    });
  }

  /**
   * Hirebridge's summary of one integration (as the list shows it: display name, health, newest runs).
   * @example
   * const { display_name, health } = await hb.integrations.summary(integrationId);
   * if (health.state !== "ok") console.log(display_name, health.reason);
   */
  summary(integrationId: string, options?: RequestOptions): Promise<IntegrationSummary> {
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/summary` }, options);
  }

  /**
   * Names the integration for people (`display_name: null` goes back to the upstream's organisation name).
   * @example
   * await hb.integrations.update(integrationId, { display_name: "Acme (EU)" });
   */
  update(integrationId: string, body: IntegrationUpdate, options?: RequestOptions): Promise<IntegrationSummary> {
    return this.ctx.http.request(
      { method: "PATCH", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}`, body, idempotent: true },
      options,
    );
  }

  /**
   * Integration details for display. `bypassCache` fetches fresh data and refreshes the proxy's cache.
   * @example
   * const { data } = await hb.integrations.get(integrationId, { bypassCache: true });
   * console.log(data.tool.label, data.status);
   */
  get(
    integrationId: string,
    params: { bypassCache?: boolean } = {},
    options?: RequestOptions,
  ): Promise<UpstreamSuccess<IntegrationDetails>> {
    return this.ctx.http.request(
      {
        method: "GET",
        baseUrl: this.ctx.baseUrl,
        path: path`/integrations/${integrationId}`,
        query: { bypass_cache: params.bypassCache },
      },
      options,
    );
  }

  /** Deletes the integration. This cannot be undone. */
  delete(integrationId: string, options?: RequestOptions): Promise<UpstreamSuccess<Record<string, never>>> {
    return this.ctx.http.request({ method: "DELETE", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}` }, options);
  }

  /**
   * A link for reconnecting the integration (for example to update its credentials).
   * @example
   * const { data } = await hb.integrations.relink(integrationId, { link_type: "MAGIC_LINK" });
   */
  relink(integrationId: string, body: RelinkRequest = {}, options?: RequestOptions): Promise<UpstreamSuccess<LinkResult>> {
    return this.ctx.http.request(
      { method: "POST", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/relink`, body },
      options,
    );
  }

  /** Turns passthrough of one integration field on or off. */
  updateField(
    integrationId: string,
    fieldId: string,
    body: IntegrationFieldUpdate,
    options?: RequestOptions,
  ): Promise<UpstreamSuccess<IntegrationField>> {
    return this.ctx.http.request(
      {
        method: "PATCH",
        baseUrl: this.ctx.baseUrl,
        path: path`/integrations/${integrationId}/integration-fields/${fieldId}`,
        body,
        idempotent: true, // sets a value: repeating it changes nothing
      },
      options,
    );
  }

  /** Maps a custom field to an integration field, replacing any existing mapping. */
  mapCustomField(
    integrationId: string,
    customFieldId: string,
    body: CustomFieldMapping,
    options?: RequestOptions,
  ): Promise<UpstreamSuccess<CustomField>> {
    return this.ctx.http.request(
      {
        method: "PUT",
        baseUrl: this.ctx.baseUrl,
        path: path`/integrations/${integrationId}/custom-fields/${customFieldId}`,
        body,
      },
      options,
    );
  }
}
