import { TokenManager, type CredentialsSource } from "./auth/token-manager.js";
import { endpointsFor, type Session, type SessionInput } from "./auth/token-endpoint.js";
import { systemClock, type Clock } from "./core/clock.js";
import { ConfigurationError } from "./core/errors.js";
import { HttpClient, type RequestOptions } from "./core/http-client.js";
import { DEFAULT_RETRY_POLICY } from "./core/retry.js";
import { globalFetch, type FetchLike } from "./core/transport.js";
import { requireSecureBaseUrl } from "./core/url.js";
import { ActivityResource } from "./proxy/activity.js";
import { AssessmentResource } from "./proxy/assessment.js";
import { AtsResource } from "./proxy/ats.js";
import { ConnectResource } from "./proxy/connect.js";
import type { ProxyContext } from "./proxy/context.js";
import { GeneralResource } from "./proxy/general.js";
import { IntegrationsResource } from "./proxy/integrations.js";
import { SyncResource } from "./proxy/sync.js";
import { WebhookEventsResource } from "./proxy/webhook-events.js";
import { AuditLogResource } from "./recruiting/audit-log.js";
import { CandidatesResource, InterviewsResource } from "./recruiting/candidates.js";
import { RecruitingContext } from "./recruiting/context.js";
import { DataRetentionResource } from "./recruiting/data-retention.js";
import { PositionsResource } from "./recruiting/positions.js";
import { ServiceAccountsResource } from "./recruiting/service-accounts.js";
import { WebhookEndpointsResource } from "./recruiting/webhook-endpoints.js";

export type HirebridgeOptions = {
  /** The identity provider's realm URL, e.g. `https://id.example.com/realms/hirebridge`. */
  authUrl: string;
  /** The recruiting API's base URL, e.g. `https://api.example.com/api/v1`. */
  apiUrl?: string | undefined;
  /** The integration proxy's base URL, e.g. `https://proxy.example.com/api/v1`. */
  proxyUrl?: string | undefined;
  /** OAuth client id: the public client's (default `hirebridge`), or a service account's with `clientSecret`. */
  clientId?: string | undefined;
  /**
   * A service account's secret: the client then obtains its tokens with the client credentials grant
   * (no username or password) and obtains a new one on its own ahead of each token's expiry.
   */
  clientSecret?: string | undefined;
  /** Username and password (or a function that supplies them when needed). */
  credentials?: CredentialsSource | undefined;
  /** A saved session (or tokens obtained elsewhere) to resume instead of logging in. */
  session?: SessionInput | undefined;
  /** Your organisation id; asked from `GET /org_id` when absent. */
  orgId?: string | undefined;
  /** Called with every new session (rotated tokens) and null when it ends: persist it here. */
  onSession?: ((session: Session | null) => void | Promise<void>) | undefined;
  /** Read before each refresh, for sessions shared between processes. */
  loadSession?: (() => Promise<Session | null>) | undefined;
  /** A lock around each refresh, shared by every holder of the session (see TokenManagerOptions.lock). */
  lock?: (<T>(work: () => Promise<T>) => Promise<T>) | undefined;
  /** Default `globalThis.fetch`. */
  fetch?: FetchLike | undefined;
  /** Deadline of each HTTP attempt in ms. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Retries of idempotent calls (and of 429s) after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /** Refresh this many seconds before the access token expires. Default 120. */
  refreshLeewaySeconds?: number | undefined;
  /** OAuth scope to request at login. */
  scope?: string | undefined;
  /** Time source (tests). */
  clock?: Clock | undefined;
};

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The Hirebridge client: the recruiting API and the integration proxy behind one login.
 *
 * @example
 * import { Hirebridge } from "hirebridge/client";
 *
 * const hb = new Hirebridge({
 *   authUrl: "http://127.0.0.1:8080/realms/hirebridge",
 *   apiUrl: "http://127.0.0.1:8001/api/v1",
 *   proxyUrl: "http://127.0.0.1:8000/api/v1",
 *   credentials: { username: "demo", password: "demo-password" },
 * });
 * const position = await hb.positions.create({ name: "Backend Engineer" });
 *
 * // A machine: a service account's credentials (docs/token-service.md, Service accounts).
 * const bot = new Hirebridge({ authUrl, apiUrl, clientId: "sa-…", clientSecret: await loadSecret() });
 */
export class Hirebridge {
  /** Token lifecycle: login, refresh, rotation. Shared by every call of this client. */
  readonly auth: TokenManager;
  readonly positions: PositionsResource;
  readonly candidates: CandidatesResource;
  readonly interviews: InterviewsResource;
  /** Where Hirebridge sends your organisation's events (outbound webhooks); verify deliveries with `verifyWebhook`. */
  readonly webhookEndpoints: WebhookEndpointsResource;
  /** Your organisation's data retention policy: how long candidates are kept (docs/privacy.md). */
  readonly dataRetention: DataRetentionResource;
  /** Your organisation's service accounts (confidential clients for machines): create, list, rotate, revoke. */
  readonly serviceAccounts: ServiceAccountsResource;
  /** Your organisation's audit log: who changed what (append-only, hash-chained), and its verification. */
  readonly audit: AuditLogResource;
  readonly general: GeneralResource;
  readonly integrations: IntegrationsResource;
  readonly ats: AtsResource;
  /** The upstream's assessment channel of an integration: its packages and the orders placed in its ATS. */
  readonly assessment: AssessmentResource;
  readonly connect: ConnectResource;
  /** Hirebridge's sync of an integration into positions and candidates. */
  readonly sync: SyncResource;
  /** An integration's trail (events, sync runs, write-backs, failed upstream calls) and retries from it. */
  readonly activity: ActivityResource;
  /** The upstream's webhook events as Hirebridge stored them: the failed ones, and their re-drive. */
  readonly webhookEvents: WebhookEventsResource;
  private readonly recruiting: RecruitingContext;

  constructor(options: HirebridgeOptions) {
    const authUrl = requireSecureBaseUrl(options.authUrl, "authUrl");
    const apiUrl = options.apiUrl === undefined ? undefined : requireSecureBaseUrl(options.apiUrl, "apiUrl");
    const proxyUrl = options.proxyUrl === undefined ? undefined : requireSecureBaseUrl(options.proxyUrl, "proxyUrl");
    const fetch = options.fetch ?? globalFetch;
    const clock = options.clock ?? systemClock;
    const timeoutMs = positive(options.timeoutMs, "timeoutMs") ?? DEFAULT_TIMEOUT_MS;
    const maxRetries = options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new ConfigurationError("maxRetries must be a whole number >= 0");

    this.auth = new TokenManager({
      endpoint: {
        ...endpointsFor(authUrl),
        clientId: options.clientId ?? "hirebridge",
        clientSecret: options.clientSecret,
        fetch,
        timeoutMs,
      },
      clock,
      credentials: options.credentials,
      session: options.session,
      refreshLeewayMs: options.refreshLeewaySeconds === undefined ? undefined : options.refreshLeewaySeconds * 1000,
      scope: options.scope,
      onSession: options.onSession,
      loadSession: options.loadSession,
      lock: options.lock,
    });
    const http = new HttpClient({ fetch, clock, timeoutMs, retry: { ...DEFAULT_RETRY_POLICY, maxRetries }, tokens: this.auth });

    this.recruiting = new RecruitingContext(http, apiUrl, options.orgId);
    this.positions = new PositionsResource(this.recruiting);
    this.candidates = new CandidatesResource(this.recruiting);
    this.interviews = new InterviewsResource(this.recruiting);
    this.webhookEndpoints = new WebhookEndpointsResource(this.recruiting);
    this.dataRetention = new DataRetentionResource(this.recruiting);
    this.serviceAccounts = new ServiceAccountsResource(this.recruiting);
    this.audit = new AuditLogResource(this.recruiting);

    const proxy: ProxyContext = {
      http,
      clock,
      get baseUrl() {
        if (!proxyUrl) throw new ConfigurationError("The proxyUrl option is needed for the integration proxy");
        return proxyUrl;
      },
    };
    this.general = new GeneralResource(proxy);
    this.integrations = new IntegrationsResource(proxy);
    this.ats = new AtsResource(proxy);
    this.assessment = new AssessmentResource(proxy);
    this.connect = new ConnectResource(proxy);
    this.sync = new SyncResource(proxy);
    this.activity = new ActivityResource(proxy);
    this.webhookEvents = new WebhookEventsResource(proxy);
  }

  /** Logs in now (otherwise the first call does), so bad credentials surface early. */
  async login(options?: RequestOptions): Promise<Session> {
    return this.auth.login(options?.signal);
  }

  /** Ends the session at the identity provider. */
  logout(): Promise<void> {
    return this.auth.logout();
  }

  /** Your organisation id: the `orgId` option, or the recruiting API's `GET /org_id`, asked once. */
  orgId(options?: RequestOptions): Promise<string> {
    return this.recruiting.orgId(options);
  }
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0) throw new ConfigurationError(`${name} must be a positive number`);
  return value;
}
