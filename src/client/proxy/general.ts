import type { ForceSyncBody, ForceSyncQuery, ToolsParams } from "../../contracts/proxy/general.js";
import type { CheckApiKeyResult, ForceSyncResult, Tool } from "../../contracts/upstream/integration-records.js";
import type { UpstreamSuccess } from "../../contracts/upstream/envelopes.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";

/** General operations of the integration proxy: API key check, forced sync, the tool catalogue. */
export class GeneralResource {
  constructor(private readonly ctx: ProxyContext) {}

  /**
   * Checks that the proxy's upstream API key works for an integration.
   * @example
   * const { data } = await hb.general.checkApiKey("greenhouse:8d1hpPsbjxUkoCoa1veLZGe5");
   */
  checkApiKey(integrationId: string, options?: RequestOptions): Promise<UpstreamSuccess<CheckApiKeyResult>> {
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: "/general/check-api-key", query: { integration_id: integrationId } },
      options,
    );
  }

  /**
   * Starts a sync of one integration (`type` FULL or DELTA; the server's default is DELTA).
   * @example
   * const { data } = await hb.general.forceSync(integrationId, { type: "FULL" });
   * console.log(data.sync_id, data.already_queued);
   */
  forceSync(
    integrationId: string,
    params: { type?: NonNullable<ForceSyncQuery["type"]>; body?: ForceSyncBody } = {},
    options?: RequestOptions,
  ): Promise<UpstreamSuccess<ForceSyncResult>> {
    return this.ctx.http.request(
      {
        method: "POST",
        baseUrl: this.ctx.baseUrl,
        path: "/general/force-sync",
        query: { integration_id: integrationId, type: params.type },
        body: params.body,
      },
      options,
    );
  }

  /**
   * The tools (ATS, HRIS or assessment systems) an integration can connect to. Cached for 5 hours by the proxy.
   * @example
   * const { data } = await hb.general.tools("ats");
   */
  tools(category: ToolsParams["category"], options?: RequestOptions): Promise<UpstreamSuccess<{ tools: Tool[] }>> {
    return this.ctx.http.request({ method: "GET", baseUrl: this.ctx.baseUrl, path: path`/general/tools/${category}` }, options);
  }
}
