import type {
  ServiceAccount,
  ServiceAccountCreate,
  ServiceAccountCreated,
  ServiceAccountList,
} from "../../contracts/service-accounts/service-accounts.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { RecruitingContext } from "./context.js";

/**
 * Your organisation's service accounts: confidential clients for machines (docs/token-service.md,
 * Service accounts). A machine gives `client_id` and `client_secret` to
 * `new Hirebridge({ clientId, clientSecret })`. Only people manage them: a service account's own
 * token is refused here (403).
 */
export class ServiceAccountsResource {
  constructor(private readonly ctx: RecruitingContext) {}

  private async call<T>(method: "GET" | "POST", rest: string, options?: RequestOptions, body?: unknown): Promise<T> {
    const org = await this.ctx.orgId(options);
    return this.ctx.http.request(
      { method, baseUrl: this.ctx.baseUrl, path: `${path`/org/${org}`}${rest}`, ...(body === undefined ? {} : { body }) },
      options,
    );
  }

  /**
   * Creates one. The answer's `client_secret` is shown this once: store it now.
   * @example
   * const bot = await hb.serviceAccounts.create({ name: "interview runner", scopes: ["recruiting"] });
   * await saveSecret(bot.client_id, bot.client_secret);
   */
  create(body: ServiceAccountCreate, options?: RequestOptions): Promise<ServiceAccountCreated> {
    return this.call("POST", "/service-accounts", options, body);
  }

  /** Every service account with when it last obtained a token (revoked ones included); never a secret. */
  list(options?: RequestOptions): Promise<ServiceAccountList> {
    return this.call("GET", "/service-accounts", options);
  }

  /** A new secret (in this answer only); the old one stops working at once. */
  rotateSecret(accountId: string, options?: RequestOptions): Promise<ServiceAccountCreated> {
    return this.call("POST", path`/service-accounts/${accountId}/rotate-secret`, options);
  }

  /** Its next token request fails; tokens it holds stay valid until they expire. */
  revoke(accountId: string, options?: RequestOptions): Promise<ServiceAccount> {
    return this.call("POST", path`/service-accounts/${accountId}/revoke`, options);
  }
}
