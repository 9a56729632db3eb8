import type { ConnectActivateRequest, ConnectCreateLinkRequest } from "../../contracts/proxy/connect.js";
import type { UpstreamSuccess } from "../../contracts/upstream/envelopes.js";
import type { IntegrationByToken, LinkResult } from "../../contracts/upstream/integration-records.js";
import type { RequestOptions } from "../core/http-client.js";
import type { ProxyContext } from "./context.js";

/** The embedded connection flow: create a link for a user, then activate what they connected. */
export class ConnectResource {
  constructor(private readonly ctx: ProxyContext) {}

  /**
   * A unique link into the connection flow. The proxy sets `end_user_origin_id` to your organisation.
   * @example
   * const { data } = await hb.connect.createLink({
   *   end_user_email: "it@acme.example",
   *   end_user_organization_name: "Acme",
   *   integration_category: "ATS",
   * });
   * console.log(data.link);
   */
  createLink(body: ConnectCreateLinkRequest, options?: RequestOptions): Promise<UpstreamSuccess<LinkResult>> {
    return this.ctx.http.request({ method: "POST", baseUrl: this.ctx.baseUrl, path: "/connect/create-link", body }, options);
  }

  /**
   * Completes the flow: exchanges the activation token the connect UI resolved with and records the
   * new integration for your organisation.
   */
  activate(body: ConnectActivateRequest, options?: RequestOptions): Promise<UpstreamSuccess<IntegrationByToken>> {
    return this.ctx.http.request({ method: "POST", baseUrl: this.ctx.baseUrl, path: "/connect/activate", body }, options);
  }
}
